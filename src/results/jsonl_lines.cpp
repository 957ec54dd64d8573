#include "openloop/results/jsonl_lines.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace openloop {

jsonl_tally read_jsonl(std::string_view text, const std::function<bool(const boost::json::object&)>& take) {
    jsonl_tally tally;
    std::size_t line_no = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        boost::system::error_code ec;
        const boost::json::value v = boost::json::parse(line, ec);
        const boost::json::object* o = ec ? nullptr : v.if_object();
        if (o == nullptr || !take(*o)) {
            ++tally.bad_lines;
            if (tally.first_bad_line == 0) tally.first_bad_line = line_no;
        }
    }
    return tally;
}

}  // namespace openloop
