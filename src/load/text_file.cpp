#include "openloop/load/text_file.hpp"

#include "openloop/base/input_error.hpp"

#include <boost/json/stream_parser.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace openloop {

std::string read_text_file(const std::string& path, std::string_view what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path + ": cannot open " + std::string(what) + " (" + std::strerror(errno) + ")");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw std::runtime_error(path + ": read error");
    return std::move(buffer).str();
}

boost::json::value parse_json_text(const std::string& text, const std::string& path) {
    boost::json::stream_parser parser;
    boost::system::error_code ec;
    const std::size_t used = parser.write(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (ec) {
        const auto line = 1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(std::min(used, text.size())), '\n');
        throw input_error(path + ":" + std::to_string(line) + ": invalid JSON: " + ec.message());
    }
    return parser.release();
}

}  // namespace openloop
