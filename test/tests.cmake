# The tests: included by CMakeLists.txt when OPENLOOP_TESTS is on and Boost.Test is found.
enable_testing()

# Test sources compile at -O1 with line tables only: their code is assertions
# and helpers, and at RelWithDebInfo's -O2 -g its code generation was most of
# their compile time (a unit test 7.3 s, 3.3 s so). In sanitized trees at -O0,
# still instrumented: there the sanitizers' passes made -O1 cost twice -O0
# (html_report_test 7.3 s against 3.2 s, run_test 16.6 s against 8.6 s), more
# than the slower test loops cost back (the ASan unit tests ran 2:10 against
# 2:05). openloop_core keeps the build type's flags: it is the product the
# integration tests run.
if(OPENLOOP_SANITIZE)
  set(OPENLOOP_TEST_COMPILE_OPTIONS -O0)
else()
  set(OPENLOOP_TEST_COMPILE_OPTIONS -O1)
endif()
list(APPEND OPENLOOP_TEST_COMPILE_OPTIONS $<IF:$<CXX_COMPILER_ID:Clang>,-gline-tables-only,-g1>)

# The tests link the core as one shared library (CMakeLists.txt: its objects
# are the product's), not each its own copy of it.
add_library(openloop_core_shared SHARED $<TARGET_OBJECTS:openloop_core_io> $<TARGET_OBJECTS:openloop_core_pure>)
target_link_libraries(openloop_core_shared PUBLIC openloop_core_settings)

# Every test executable links Boost.Test's main (test_main.cpp: no test file
# defines BOOST_TEST_MODULE) and the paths of this build (test_paths.cpp).
add_library(openloop_test_main OBJECT test/support/test_main.cpp test/support/test_paths.cpp)
target_link_libraries(openloop_test_main PUBLIC openloop_core_shared Boost::unit_test_framework)
target_include_directories(openloop_test_main PUBLIC ${PROJECT_SOURCE_DIR}/test/support)
target_compile_definitions(openloop_test_main PUBLIC BOOST_TEST_DYN_LINK)
target_compile_options(openloop_test_main PUBLIC ${OPENLOOP_TEST_COMPILE_OPTIONS})
set(_paths "OPENLOOP_BIN=\"$<TARGET_FILE:openloop>\"" "OPENLOOP_SOURCE_DIR=\"${PROJECT_SOURCE_DIR}\"")
if(NOT OPENLOOP_SANITIZE)
  add_library(openloop_malloc_count SHARED test/support/malloc_count.cpp)
  target_link_libraries(openloop_malloc_count PRIVATE ${CMAKE_DL_LIBS})
  list(APPEND _paths "OPENLOOP_MALLOC_COUNT=\"$<TARGET_FILE:openloop_malloc_count>\"")
endif()
set_source_files_properties(test/support/test_paths.cpp PROPERTIES COMPILE_DEFINITIONS "${_paths}")

# The headers every test of a kind parses, precompiled once per kind: Boost.Test
# and JSON for unit tests; for integration tests also Asio, Beast and TLS,
# which test_http.hpp brings (their parse was 6 of an integration test's 11 s).
set(OPENLOOP_UNIT_PCH <boost/test/unit_test.hpp> <boost/json.hpp> <filesystem> <functional> <map> <string> <vector>)
set(OPENLOOP_IT_PCH ${OPENLOOP_UNIT_PCH} <boost/asio.hpp> <boost/asio/ssl.hpp> <boost/beast/core.hpp>
    <boost/beast/http.hpp> <boost/beast/ssl.hpp>)

# One ctest test per test file, named for it (unit_ring), so ctest names the
# failing component; each file's code sits in a Boost.Test suite of that name
# (BOOST_AUTO_TEST_SUITE(unit_ring) after its includes), which the test runs.
# The files of a kind compile several to a unit (CMake's unity build) into one
# executable, unit_tests or integration_tests: most of a test file's compile
# time was generating the Boost code (JSON, Asio, Boost.Test) that every other
# file generated too, and three integration test files compiled together in
# 18.9 s against 51.8 s apart. The suite keeps a file's helpers from meeting
# another's. Files that replace the global operator new (count_allocations.hpp)
# get an executable of their own, so the others keep the sanitizers' own.
# OPENLOOP_TEST_GROUPS=OFF builds one executable per file, named for it: the
# TSan tree builds the few it runs so. An
# integration test file is split into one ctest test per case (it_sweep/NAME),
# so that its cases run beside the others'; a case labelled "alone"
# (*boost::unit_test::label("alone") on the BOOST_AUTO_TEST_CASE line) times
# something that another test's load would disturb: it runs with no other test
# beside it (ctest label "alone"); tools/check lets the next tree's build go on
# beside it at nice 19, which the simulator's timers do not notice.
# Integration tests that spend their time waiting on the clock, on paths the
# others cover, are built in plain trees only: it_sweep (3 minutes of
# open-loop stages, which it_run and the others cover), it_replay_on_time (a
# minute of trace at 6x on it_mooncake_replay's path), it_soak (100 s of
# windows; it_soak_crash runs a soak's path), it_k8s_manifests (the pods'
# commands are run, merge and sweep, which it_shard covers) and it_report_html
# (chromium reading report.html: the page's code is unit_html_report's, which
# the sanitized trees run). Their sanitized builds were compile time for tests
# tools/check never ran.
set(OPENLOOP_PLAIN_ONLY_TESTS sweep replay_on_time soak report_html)  # and it_k8s_manifests, below

# openloop_integration_tests builds the integration tests and what they run,
# without the unit tests: tools/check's gcc tree, whose unit tests would repeat
# the sanitized tree's.
add_custom_target(openloop_integration_tests)
option(OPENLOOP_TEST_GROUPS "Compile the test files of a kind into one executable, several to a unit (OFF: one executable per file)" ON)
set(OPENLOOP_TEST_BATCH_unit 16)  # files per unit: 118 unit test files in 8 units
set(OPENLOOP_TEST_BATCH_it 8)     # 45 integration test files in 6

# An executable of test files of one kind: Boost.Test's main, the kind's precompiled headers.
function(openloop_test_executable exe prefix pch)
  add_executable(${exe})
  target_link_libraries(${exe} PRIVATE openloop_test_main)
  set_target_properties(${exe} PROPERTIES UNITY_BUILD ${OPENLOOP_UNITY_BUILD}
                        UNITY_BUILD_BATCH_SIZE ${OPENLOOP_TEST_BATCH_${prefix}})
  get_property(_owner GLOBAL PROPERTY OPENLOOP_${prefix}_PCH_TARGET)
  if(_owner)
    target_precompile_headers(${exe} REUSE_FROM ${_owner})
  else()
    target_precompile_headers(${exe} PRIVATE ${${pch}})
    set_property(GLOBAL PROPERTY OPENLOOP_${prefix}_PCH_TARGET ${exe})
  endif()
  if(prefix STREQUAL "it")
    add_dependencies(${exe} openloop)
    add_dependencies(openloop_integration_tests ${exe})
  endif()
endfunction()

# The executable that holds a test file (its ctest name: unit_ring): OUT names it.
function(openloop_test_exe test out)
  get_property(_exe GLOBAL PROPERTY OPENLOOP_TEST_EXE_${test})
  set(${out} ${_exe} PARENT_SCOPE)
endfunction()

function(openloop_add_tests dir prefix pch)
  file(GLOB_RECURSE _tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/test/${dir}/*_test.cpp)
  foreach(_src IN LISTS _tests)
    get_filename_component(_name ${_src} NAME_WE)
    string(REGEX REPLACE "_test$" "" _name ${_name})
    set(_target ${prefix}_${_name})
    if(OPENLOOP_SANITIZE AND prefix STREQUAL "it" AND _name IN_LIST OPENLOOP_PLAIN_ONLY_TESTS)
      continue()
    endif()
    # A case added to the file re-runs this configure, so it gets its ctest test.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_src})
    file(STRINGS ${_src} _suite REGEX "^BOOST_AUTO_TEST_SUITE\\(${_target}\\)$")
    if(NOT _suite)
      message(FATAL_ERROR "${_src}: a test file's code, after its includes, goes in "
                          "BOOST_AUTO_TEST_SUITE(${_target}) ... BOOST_AUTO_TEST_SUITE_END(): "
                          "ctest runs the file by that suite")
    endif()
    set(_exe ${_target})
    if(OPENLOOP_TEST_GROUPS)
      set(_exe ${dir}_tests)
      file(STRINGS ${_src} _counting REGEX "^#include \"count_allocations.hpp\"")
      if(_counting)
        set(_exe ${dir}_counting_new_tests)
      endif()
    endif()
    if(NOT TARGET ${_exe})
      openloop_test_executable(${_exe} ${prefix} ${pch})
    endif()
    target_sources(${_exe} PRIVATE ${_src})
    set_property(GLOBAL PROPERTY OPENLOOP_TEST_EXE_${_target} ${_exe})
    if(prefix STREQUAL "unit")
      add_test(NAME ${_target} COMMAND ${_exe} --run_test=${_target} --log_level=message --report_level=short)
      set_tests_properties(${_target} PROPERTIES LABELS unit TIMEOUT 600)
      continue()
    endif()
    file(STRINGS ${_src} _declared REGEX "BOOST_[A-Z_]*TEST_(CASE|SUITE)")
    list(FILTER _declared EXCLUDE REGEX "^BOOST_AUTO_TEST_SUITE(_END)?\\((${_target})?\\)$")
    file(STRINGS ${_src} _cases REGEX "^BOOST_AUTO_TEST_CASE\\([a-z0-9_]+")
    list(LENGTH _declared _n_declared)
    list(LENGTH _cases _n_cases)
    if(NOT _n_declared EQUAL _n_cases OR _n_cases EQUAL 0)
      message(FATAL_ERROR "${_src}: integration tests are split into ctest tests by their "
                          "BOOST_AUTO_TEST_CASE(name) lines at the start of a line; this file declares "
                          "${_n_declared} test units and ${_n_cases} such cases")
    endif()
    foreach(_case IN LISTS _cases)
      string(REGEX MATCH "^BOOST_AUTO_TEST_CASE\\(([a-z0-9_]+)" _ ${_case})
      set(_test ${_target}/${CMAKE_MATCH_1})
      add_test(NAME ${_test} COMMAND ${_exe} --run_test=${_test} --log_level=message --report_level=short)
      set_tests_properties(${_test} PROPERTIES LABELS it TIMEOUT 600)
      if(_case MATCHES "label\\(\"alone\"\\)")
        set_tests_properties(${_test} PROPERTIES LABELS "it;alone" RUN_SERIAL ON)
      endif()
    endforeach()
  endforeach()
endfunction()
openloop_add_tests(unit unit OPENLOOP_UNIT_PCH)
openloop_test_exe(unit_sentencepiece_counter _exe)
if(SENTENCEPIECE_TRAIN_LIBRARY AND _exe)
  target_link_libraries(${_exe} PRIVATE ${SENTENCEPIECE_TRAIN_LIBRARY})
endif()
openloop_add_tests(integration it OPENLOOP_IT_PCH)
# The browser cases are the integration tests that compute: a_runs_report_shows_its_summary
# used 14.7 s of CPU in 13.2 s, the others some 6.5 s in 14 s. Three at once took
# both cores, and a run timed beside them waited 978 ms for a CPU (its lag bound
# broken). One at a time, each holding three of ctest's four slots on two cores.
get_property(_browser_cases DIRECTORY PROPERTY TESTS)
list(FILTER _browser_cases INCLUDE REGEX "^it_report_html/")
if(_browser_cases)
  set_tests_properties(${_browser_cases} PROPERTIES RESOURCE_LOCK browser PROCESSORS 3)
endif()
# The io thread's allocations per request and per chunk, counted by a malloc
# preloaded into the real binary. Not in sanitized trees: their runtime must
# come first in the process and takes over malloc itself.
if(NOT OPENLOOP_SANITIZE)
  openloop_add_tests(alloc it OPENLOOP_IT_PCH)
  openloop_test_exe(it_allocations _exe)
  add_dependencies(${_exe} openloop_malloc_count)
endif()

# Sanitized tests: reports go to files as well as ending the process, so a
# report in a child (openloop run, openloop sim) is caught even when the test
# does not look at that child's exit status; tools/check fails on any file.
if(OPENLOOP_SANITIZE)
  set(OPENLOOP_SANITIZER_LOGS ${PROJECT_BINARY_DIR}/sanitizer-logs)
  set(_log log_path=${OPENLOOP_SANITIZER_LOGS}/report)
  set(OPENLOOP_SANITIZER_ENV
    "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1:${_log}"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:${_log}"
    "LSAN_OPTIONS=${_log}"
    "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:${_log}")
  get_property(_tests DIRECTORY PROPERTY TESTS)
  foreach(_t IN LISTS _tests)
    set_tests_properties(${_t} PROPERTIES ENVIRONMENT "${OPENLOOP_SANITIZER_ENV}")
  endforeach()
endif()

if(OPENLOOP_FUZZ)
  add_subdirectory(test/fuzz)
endif()

# The plotting, robustness-report and dashboard tools are Python; their tests run with the rest (tools/deps --plots
# installs matplotlib for the plots).
# Debian's interpreter, where the packages tools/deps installs are.
if(EXISTS /usr/bin/python3 AND NOT Python3_EXECUTABLE)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME unit_plot_sweep COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_plot_sweep.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(unit_plot_sweep PROPERTIES LABELS unit TIMEOUT 300)
  add_test(NAME unit_robustness_report COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_robustness_report.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(unit_robustness_report PROPERTIES LABELS unit TIMEOUT 60)
  add_test(NAME unit_grafana_dashboard COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_grafana_dashboard.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(unit_grafana_dashboard PROPERTIES LABELS unit TIMEOUT 60)
  # The same dashboard's every query run on Debian's Prometheus (tools/deps --tests) scraping a real run and the
  # simulator, about 25 s. Plain trees only: what it adds is PromQL; the endpoint's code is it_metrics_endpoint's.
  if(NOT OPENLOOP_SANITIZE)
    add_test(NAME it_grafana_prometheus COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_grafana_prometheus.py
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(it_grafana_prometheus PROPERTIES LABELS it TIMEOUT 180
                         ENVIRONMENT "OPENLOOP_BIN=$<TARGET_FILE:openloop>")
  endif()
  # docs/architecture.md's rules a script can check: includes down the flow, file and class sizes.
  add_test(NAME unit_tree_shape COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_tree_shape.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(unit_tree_shape PROPERTIES LABELS unit TIMEOUT 60)
  add_test(NAME unit_plot_compare COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_plot_compare.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(unit_plot_compare PROPERTIES LABELS unit TIMEOUT 300)
  add_test(NAME unit_plot_soak COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_plot_soak.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(unit_plot_soak PROPERTIES LABELS unit TIMEOUT 300)
  # Every relative link and #anchor of README.md, BENCHMARKS.md and docs/ resolves.
  add_test(NAME unit_doc_links COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_doc_links.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(unit_doc_links PROPERTIES LABELS unit TIMEOUT 60)
  # openloop's local tokenizers (openloop tokenize) against the reference implementations on Node.js that
  # tools/deps --tests installs (tools/tokenizer-reference): one test per tokenizer, the packaged models',
  # tiktoken's two encodings and each hand-built tokenizer folder in test/data/tokenizers. Label ref; each fails,
  # not skips, when the reference is not installed.
  file(GLOB _hand_built CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/test/data/tokenizers/*/tokenizer.json)
  list(TRANSFORM _hand_built REPLACE "/tokenizer\\.json$" "")
  set(_tokenizers llama3 qwen3 deepseek_v3 gpt4o gemma3 llama2 cl100k o200k ${_hand_built})
  foreach(_tok IN LISTS _tokenizers)
    get_filename_component(_name ${_tok} NAME)
    string(REPLACE "-" "_" _name ${_name})
    add_test(NAME ref_tokenizer_${_name}
             COMMAND ${Python3_EXECUTABLE} tools/test_tokenizer_reference.py --openloop $<TARGET_FILE:openloop>
                     --work ${PROJECT_BINARY_DIR}/tokenizer-reference ${_tok}
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(ref_tokenizer_${_name} PROPERTIES LABELS ref TIMEOUT 300)
  endforeach()
  # The usage-only server (test/servers/hf_usage_server.mjs): counts as the reference's, shapes openloop reads.
  add_test(NAME ref_hf_usage_server COMMAND ${Python3_EXECUTABLE} -m unittest tools/test_hf_usage_server.py
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(ref_hf_usage_server PROPERTIES LABELS ref TIMEOUT 300
                       ENVIRONMENT "OPENLOOP_BIN=$<TARGET_FILE:openloop>")
  # The Kubernetes manifests' commands, run here against the real binary and simulator (python3-yaml);
  # plain trees only (OPENLOOP_PLAIN_ONLY_TESTS).
  if(NOT OPENLOOP_SANITIZE)
    add_test(NAME it_k8s_manifests COMMAND ${Python3_EXECUTABLE} -m unittest tools/k8s/test_manifests.py
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(it_k8s_manifests PROPERTIES LABELS it TIMEOUT 600
                         ENVIRONMENT "OPENLOOP_BIN=$<TARGET_FILE:openloop>")
  endif()
endif()
