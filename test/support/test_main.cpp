// The one test module definition every test executable links: Boost.Test's
// main and its init. A test file defines no BOOST_TEST_MODULE of its own, so
// the precompiled <boost/test/unit_test.hpp> can be shared by all of them.
#define BOOST_TEST_MODULE openloop
#include <boost/test/unit_test.hpp>

#include <filesystem>

namespace {

// Reports name the executable (integration_tests; it_sweep where each test file has its own).
struct module_named_for_the_binary {
    module_named_for_the_binary() {
        auto& master = boost::unit_test::framework::master_test_suite();
        if (master.argc > 0) master.p_name.value = std::filesystem::path(master.argv[0]).filename().string();
    }
};
BOOST_TEST_GLOBAL_FIXTURE(module_named_for_the_binary);

}  // namespace
