#include "openloop/base/json_text.hpp"

#include "openloop/base/output_file.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

namespace openloop {

namespace {

void append_double(std::string& out, double d) {
    if (!std::isfinite(d)) {
        out += "null";  // JSON has no infinity or NaN
        return;
    }
    // Shortest round-trip form, in plain notation where it is short
    // (Boost.JSON 1.81 would write 1.5E1).
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, d);
    out.append(buf, res.ptr);
    if (std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)).find_first_of(".e") == std::string_view::npos) {
        out += ".0";  // keep it a double when read back
    }
}

// indent < 0: everything on one line.
void pretty(std::string& out, const boost::json::value& v, int indent) {
    const bool compact = indent < 0;
    const auto newline = [&](int level) {
        if (compact) {
            return;
        }
        out += '\n';
        out.append(static_cast<std::size_t>(level) * 2, ' ');
    };
    const int inner = compact ? indent : indent + 1;
    switch (v.kind()) {
    case boost::json::kind::object: {
        const auto& o = v.get_object();
        if (o.empty()) {
            out += "{}";
            return;
        }
        out += '{';
        bool first = true;
        for (const auto& kv : o) {
            if (!first) {
                out += ',';
            }
            first = false;
            newline(inner);
            out += boost::json::serialize(boost::json::value(kv.key()));
            out += compact ? ":" : ": ";
            pretty(out, kv.value(), inner);
        }
        newline(indent);
        out += '}';
        return;
    }
    case boost::json::kind::array: {
        const auto& a = v.get_array();
        if (a.empty()) {
            out += "[]";
            return;
        }
        // Arrays of scalars (histogram counts) stay on one line: one number
        // per line would make summary.json thousands of lines long.
        const bool flat = std::all_of(a.begin(), a.end(), [](const boost::json::value& e) {
            return !e.is_object() && !e.is_array();
        });
        out += '[';
        bool first = true;
        for (const auto& e : a) {
            if (!first) {
                out += flat && !compact ? ", " : ",";
            }
            first = false;
            if (!flat) {
                newline(inner);
            }
            pretty(out, e, inner);
        }
        if (!flat) {
            newline(indent);
        }
        out += ']';
        return;
    }
    case boost::json::kind::double_: append_double(out, v.get_double()); return;
    default: out += boost::json::serialize(v); return;
    }
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    std::size_t plain = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + plain, i - plain);
        plain = i + 1;
        out.push_back('\\');
        switch (c) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '\b': out.push_back('b'); break;
        case '\f': out.push_back('f'); break;
        case '\n': out.push_back('n'); break;
        case '\r': out.push_back('r'); break;
        case '\t': out.push_back('t'); break;
        default:
            out.append("u00");
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    out.append(s.data() + plain, s.size() - plain);
}

void json_line::key(std::string_view k) {
    if (!first_) out_.push_back(',');
    first_ = false;
    out_.push_back('"');
    append_json_escaped(out_, k);
    out_.append("\":");
}

json_line& json_line::field(std::string_view k, std::int64_t v) {
    key(k);
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    return *this;
}

json_line& json_line::field(std::string_view k, std::uint64_t v) {
    key(k);
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    return *this;
}

json_line& json_line::field(std::string_view k, double v) {
    key(k);
    append_double(out_, v);
    return *this;
}

json_line& json_line::field(std::string_view k, bool v) {
    key(k);
    out_.append(v ? "true" : "false");
    return *this;
}

json_line& json_line::field(std::string_view k, std::string_view v) {
    key(k);
    out_.push_back('"');
    append_json_escaped(out_, v);
    out_.push_back('"');
    return *this;
}

void json_line::number(double v) { append_double(out_, v); }

json_line& json_line::null(std::string_view k) {
    key(k);
    out_.append("null");
    return *this;
}

std::string pretty_json(const boost::json::value& value) {
    std::string out;
    pretty(out, value, 0);
    out += '\n';
    return out;
}

std::string compact_json(const boost::json::value& value) {
    std::string out;
    pretty(out, value, -1);
    return out;
}

boost::json::value ms_json(double ms) { return std::isinf(ms) ? boost::json::value("inf") : boost::json::value(ms); }

std::optional<double> ms_from_json(const boost::json::value& v) {
    if (v.is_number()) return v.to_number<double>();
    if (v.is_string() && v.get_string() == "inf") return std::numeric_limits<double>::infinity();
    return std::nullopt;
}

void write_json_file(const std::string& path, const boost::json::value& value) {
    write_file_replacing(path, pretty_json(value));
}

}  // namespace openloop
