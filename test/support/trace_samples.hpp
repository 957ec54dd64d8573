#pragma once
// What the trace tests share: the shipped slices, a file read whole, an entry
// of given input length and prefix blocks, and the message bad input throws.

#include "openloop/base/input_error.hpp"
#include "openloop/load/trace.hpp"
#include "test_paths.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace trace_samples {

inline const std::string traces_dir = std::string(openloop_test::source_dir) + "/test/data/traces/";
inline const std::string azure_path = traces_dir + "azure-conv-2023/AzureLLMInferenceTrace_conv.first2000.csv";
inline const std::string mooncake_path = traces_dir + "mooncake-conversation/conversation_trace.first600s.jsonl";

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline openloop::trace_entry entry(int input, std::vector<std::uint64_t> ids, int output = 8) {
    openloop::trace_entry e;
    e.input_tokens = input;
    e.output_tokens = output;
    e.hash_ids = std::move(ids);
    return e;
}

// The message of the input_error that f throws ("" if none): bad input names file:line and field.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const openloop::input_error& e) {
        return e.what();
    }
    return {};
}

}  // namespace trace_samples
