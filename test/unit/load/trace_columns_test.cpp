#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/trace_columns.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_trace_columns)

using namespace openloop;

namespace {

std::string error_of(std::string_view spec) {
    try {
        parse_trace_columns(spec);
    } catch (const input_error& e) {
        return e.what();
    }
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_mapping_names_each_column) {
    const trace_columns c = parse_trace_columns("time=ts:ms, input=Request tokens,output=out,prefix=hash_ids,session=conv");
    BOOST_TEST(c.time == std::vector<std::string>{"ts"});
    BOOST_TEST((c.unit == time_unit::ms));
    BOOST_TEST(c.input == std::vector<std::string>{"Request tokens"});
    BOOST_TEST(c.output == std::vector<std::string>{"out"});
    BOOST_TEST(c.prefix == std::vector<std::string>{"hash_ids"});
    BOOST_TEST(c.session == std::vector<std::string>{"conv"});
    BOOST_TEST(c.prompt.empty());
    BOOST_TEST(!c.prefix_optional);
    BOOST_TEST(to_string(c) == "time=ts:ms,input=Request tokens,output=out,session=conv,prefix=hash_ids");
    BOOST_TEST((parse_trace_columns(to_string(c)) == c));

    // The unit defaults to seconds; a name may hold colons when the unit follows.
    const trace_columns d = parse_trace_columns("time=ts,prompt=text,output=usage.completion_tokens");
    BOOST_TEST((d.unit == time_unit::s));
    BOOST_TEST(d.input.empty());
    BOOST_TEST(parse_trace_columns("time=a:b:s,input=i,output=o").time == std::vector<std::string>{"a:b"});
    BOOST_TEST((parse_trace_columns("time=x:b:iso,input=i,output=o").unit == time_unit::iso));
}

BOOST_AUTO_TEST_CASE(bad_mappings_say_what_is_wrong) {
    const std::vector<std::pair<const char*, const char*>> cases{
        {"input=i,output=o", "no time=NAME"},
        {"time=t,input=i", "no output=NAME"},
        {"time=t,output=o", "neither input=NAME nor prompt=NAME"},
        {"time=t:hours,input=i,output=o", "unknown time unit \"hours\""},
        {"time=t,input=i,output=o,colour=c", "unknown key \"colour\""},
        {"time=t,input=i,input=j,output=o", "key \"input\" given twice"},
        {"time=t,input,output=o", "item \"input\" is not KEY=NAME"},
        {"time=t,,input=i,output=o", "an empty item"},
        {"time=:ms,input=i,output=o", "key \"time\" names no column"},
    };
    for (const auto& [spec, what] : cases) {
        const std::string e = error_of(spec);
        BOOST_TEST(e.starts_with("--trace-columns \""), spec << ": " << e);
        BOOST_TEST(e.find(what) != std::string::npos, spec << ": " << e);
    }
}

BOOST_AUTO_TEST_CASE(formats_are_presets) {
    BOOST_TEST(to_string(preset_columns(trace_format::mooncake)) ==
               "time=timestamp:ms,input=input_length,output=output_length,prefix=hash_ids");
    BOOST_TEST(to_string(preset_columns(trace_format::azure)) ==
               "time=TIMESTAMP:iso,input=ContextTokens,output=GeneratedTokens");
    BOOST_TEST(to_string(preset_columns(trace_format::burstgpt)) ==
               "time=Timestamp:s,input=Request tokens,output=Response tokens");
    BOOST_TEST(to_string(preset_columns(trace_format::openloop)) ==
               "time=intended_ns|t_ns:ns,input=input_tokens,output=output_tokens|max_tokens,session=session,prefix=hash_ids");
    BOOST_TEST(preset_columns(trace_format::mooncake).prefix_optional);
    BOOST_TEST(preset_columns(trace_format::openloop).session_optional);
    BOOST_CHECK_THROW(preset_columns(trace_format::auto_detect), std::invalid_argument);
    BOOST_TEST((parse_trace_format("burstgpt") == trace_format::burstgpt));
    BOOST_CHECK_THROW(parse_trace_format("columns"), input_error);
}

BOOST_AUTO_TEST_SUITE_END()
