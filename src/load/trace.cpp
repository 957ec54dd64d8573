#include "openloop/load/trace.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/trim.hpp"
#include "openloop/load/csv_reader.hpp"
#include "openloop/load/json_fields.hpp"
#include "openloop/load/trace_keeper.hpp"
#include "openloop/load/tokens.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace openloop {
namespace {


bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
               return lower(x) == lower(y);
           });
}

// Calls f(line, number) for each line without its terminator (LF or CRLF)
// until f returns false; a final line without a terminator counts.
template <class F>
void for_each_line(std::string_view text, F&& f) {
    std::size_t number = 0;
    while (!text.empty()) {
        ++number;
        std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!f(line, number)) break;
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
}

std::string_view strip_bom(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    return text;
}

std::string_view first_content_line(std::string_view text) {
    std::string_view found;
    for_each_line(text, [&](std::string_view line, std::size_t) {
        found = trim(line, " \t\r");
        return found.empty();
    });
    return found;
}

std::string error_at(std::string_view name, std::size_t line, std::string_view what) {
    return std::string(name) + ":" + std::to_string(line) + ": " + std::string(what);
}

// ---- one row: the mapped cells to an entry -----------------------------------

// The roles of a mapping, in the order cells are gathered.
enum role : std::size_t { time_role, input_role, output_role, prompt_role, session_role, prefix_role, role_count };

std::array<const std::vector<std::string>*, role_count> roles_of(const trace_columns& c) {
    return {&c.time, &c.input, &c.output, &c.prompt, &c.session, &c.prefix};
}

// "\"a\"" or "\"a\" (or \"b\")", for a message.
std::string column_names(const std::vector<std::string>& names) {
    std::string out = "\"" + names.front() + "\"";
    for (std::size_t i = 1; i < names.size(); ++i) out += " (or \"" + names[i] + "\")";
    return out;
}

// A cell's value for the row; cells[r] is the cell of role r (type missing
// when the row lacks it), names[r] the name it was found under.
trace_entry make_entry(const trace_columns& c, const std::array<const json_field*, role_count>& cells,
                       const std::array<std::string_view, role_count>& names) {
    const auto roles = roles_of(c);
    using kind = json_field::kind;
    auto scalar = [&](role r, std::string_view expected) -> const std::string& {
        const json_field& f = *cells[r];
        if (f.type == kind::missing) throw trace_row_error("missing field " + column_names(*roles[r]));
        if (f.type != kind::number && f.type != kind::string)
            throw trace_row_error("field \"" + std::string(names[r]) + "\": expected " + std::string(expected) +
                                  ", got " + (f.type == kind::array    ? std::string("an array")
                                              : f.type == kind::object ? std::string("an object")
                                                                       : f.text));
        return f.text;
    };
    trace_entry e;
    e.at_ns = parse_time_ns(names[time_role], scalar(time_role, "a time"), c.unit);
    if (!c.prompt.empty()) {
        if (cells[prompt_role]->type == kind::number)
            throw trace_row_error("field \"" + std::string(names[prompt_role]) + "\": expected a string, got " +
                                  cells[prompt_role]->text);
        e.prompt = scalar(prompt_role, "a string");
        // Servers refuse an empty prompt, and a generated one would not be the row's.
        if (e.prompt.empty()) throw trace_row_error("field \"" + std::string(names[prompt_role]) + "\": empty prompt");
    }
    e.input_tokens = c.input.empty() ? count_text_tokens(e.prompt)
                                     : parse_token_count(names[input_role], scalar(input_role, "a token count"));
    e.output_tokens = parse_token_count(names[output_role], scalar(output_role, "a token count"));
    const kind session_cell = c.session.empty() ? kind::missing : cells[session_role]->type;
    if (!c.session.empty() && session_cell != kind::null && !(session_cell == kind::missing && c.session_optional))
        e.session = scalar(session_role, "an id");
    if (!c.prefix.empty()) {
        const json_field& f = *cells[prefix_role];
        const std::string_view name = names[prefix_role];
        if (f.type == kind::array) {
            if (f.mixed) throw trace_row_error("field \"" + std::string(name) + "\": expected an array of block ids");
            e.hash_ids.reserve(f.items.size());
            for (const std::string& id : f.items) e.hash_ids.push_back(parse_block_id(name, id));
        } else if (f.type == kind::number || f.type == kind::string) {
            e.hash_ids = parse_block_ids(name, f.text);
        } else if (f.type == kind::missing && !c.prefix_optional) {
            throw trace_row_error("missing field " + column_names(c.prefix));
        } else if (f.type != kind::missing && f.type != kind::null) {
            throw trace_row_error("field \"" + std::string(name) + "\": expected an array of block ids, got " +
                                  (f.type == kind::object ? std::string("an object") : f.text));
        }
    }
    return e;
}

// ---- JSONL and CSV -------------------------------------------------------------

// Calls row(number, end, parse) for every non-blank line until it returns
// false; end is where the line ends in text, parse() gives its entry.
template <class Row>
void read_jsonl(std::string_view text, const trace_columns& c, Row&& row) {
    // Every name of every role, looked up in one pass over the line.
    std::vector<std::string> names;
    std::array<std::pair<std::size_t, std::size_t>, role_count> span{};  // [first, last) into names per role
    const auto roles = roles_of(c);
    for (std::size_t r = 0; r < role_count; ++r) {
        span[r].first = names.size();
        names.insert(names.end(), roles[r]->begin(), roles[r]->end());
        span[r].second = names.size();
    }
    static const json_field missing;
    std::vector<json_field> fields;
    for_each_line(text, [&](std::string_view line, std::size_t number) {
        if (trim(line, " \t\r").empty()) return true;
        return row(number, line.data() + line.size(), [&] {
            if (std::string bad = read_json_fields(trim(line, " \t\r"), names, fields); !bad.empty()) throw trace_row_error(bad);
            std::array<const json_field*, role_count> cells{};
            std::array<std::string_view, role_count> found{};
            for (std::size_t r = 0; r < role_count; ++r) {
                cells[r] = &missing;
                if (span[r].first < span[r].second) found[r] = names[span[r].first];
                for (std::size_t i = span[r].first; i < span[r].second; ++i) {
                    if (fields[i].type != json_field::kind::missing) {
                        cells[r] = &fields[i];
                        found[r] = names[i];
                        break;
                    }
                }
            }
            return make_entry(c, cells, found);
        });
    });
}

// The header cell that names (in order of preference) pick: exact, else
// ignoring case; -1 when none.
long find_column(const std::vector<std::string>& header, const std::vector<std::string>& names) {
    for (const std::string& n : names) {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == n) return long(i);
        for (std::size_t i = 0; i < header.size(); ++i)
            if (iequals(header[i], n)) return long(i);
    }
    return -1;
}

template <class Row>
void read_csv(std::string_view text, const trace_columns& c, char delimiter, std::string_view name,
              std::string_view format, Row&& row) {
    csv_reader reader(text, delimiter != 0 ? delimiter : detect_csv_delimiter(first_content_line(text)));
    csv_record record;
    while (reader.next(record) && record.blank()) {}
    if (record.fields.empty() || record.blank()) return;  // no header: no rows
    // A quoting slip in the header matters only if it hides a column.
    const std::string header_error = record.error.empty() ? "" : "; header: " + record.error;
    const std::vector<std::string> header = record.fields;
    const auto roles = roles_of(c);
    std::array<long, role_count> index{};
    std::size_t needed = 0;
    for (std::size_t r = 0; r < role_count; ++r) {
        index[r] = roles[r]->empty() ? -1 : find_column(header, *roles[r]);
        if (index[r] < 0 && !roles[r]->empty() && !(r == prefix_role && c.prefix_optional))
            throw input_error(error_at(name, record.line,
                                       "header lacks column " + column_names(*roles[r]) + " (" + std::string(format) +
                                           (format == "columns" ? " --trace-columns " + to_string(c) : " format") + ")" +
                                           header_error));
        if (index[r] >= 0) needed = std::max(needed, std::size_t(index[r]) + 1);
    }
    static const json_field missing;
    std::array<json_field, role_count> cells;
    while (reader.next(record)) {
        if (record.blank()) continue;
        const bool more = row(record.line, text.data() + reader.offset(), [&] {
            if (!record.error.empty()) throw trace_row_error(record.error);
            if (record.fields.size() < needed)
                throw trace_row_error("expected at least " + std::to_string(needed) + " columns, got " +
                                      std::to_string(record.fields.size()));
            std::array<const json_field*, role_count> at{};
            std::array<std::string_view, role_count> names{};
            for (std::size_t r = 0; r < role_count; ++r) {
                at[r] = &missing;
                if (index[r] < 0) continue;
                cells[r].type = json_field::kind::string;
                cells[r].text = record.fields[std::size_t(index[r])];
                at[r] = &cells[r];
                names[r] = header[std::size_t(index[r])];
            }
            return make_entry(c, at, names);
        });
        if (!more) return;
    }
}

bool header_has(const std::vector<std::string>& header, std::string_view name) {
    return std::any_of(header.begin(), header.end(), [&](const std::string& h) { return iequals(h, name); });
}

}  // namespace

trace_format detect_trace_format(std::string_view text, std::string_view name) {
    text = strip_bom(text);
    const std::string_view first = first_content_line(text);
    auto fail = [&](std::string_view why) {
        return input_error(std::string(name) + ": cannot detect the trace format (" + std::string(why) +
                           "; first line " + quoted_value(first) +
                           "); expected Mooncake or openloop JSONL, or an Azure or BurstGPT CSV header; give the "
                           "format (" + std::string(trace_format_names) +
                           ") or map the columns of any CSV or JSONL log with --trace-columns");
    };
    if (first.empty()) throw fail("no content");
    if (first.front() == '{') {
        std::vector<json_field> fields;
        if (!read_json_fields(first, {"input_length", "input_tokens"}, fields).empty()) throw fail("not a JSON object");
        if (fields[0].type != json_field::kind::missing) return trace_format::mooncake;
        if (fields[1].type != json_field::kind::missing) return trace_format::openloop;
        throw fail("neither \"input_length\" nor \"input_tokens\"");
    }
    csv_reader reader(first, detect_csv_delimiter(first));
    csv_record header;
    reader.next(header);
    for (trace_format f : {trace_format::azure, trace_format::burstgpt}) {
        const trace_columns c = preset_columns(f);
        if (header_has(header.fields, c.input.front()) && header_has(header.fields, c.output.front())) return f;
    }
    throw fail("unknown header");
}

namespace {

// parse_trace, telling read_past(p) as rows are read that the text before p
// is done with (load_trace hands its pages back).
template <class ReadPast>
trace parse_rows(std::string_view text, std::string_view name, const trace_parse_options& options,
                 ReadPast&& read_past) {
    text = strip_bom(text);
    trace out;
    if (options.columns) {
        if (options.format != trace_format::auto_detect)
            throw input_error("give either a trace format (" + std::string(to_string(options.format)) +
                              ") or --trace-columns, not both");
        out.format = trace_format::columns;
        out.columns = *options.columns;
    } else {
        out.format = options.format == trace_format::auto_detect ? detect_trace_format(text, name) : options.format;
        out.columns = preset_columns(out.format);
    }
    const bool jsonl = out.format == trace_format::mooncake || out.format == trace_format::openloop ||
                       (out.format == trace_format::columns && first_content_line(text).starts_with('{'));

    trace_keeper keeper(options.selection);
    for (;;) {
        out.rows_read = 0;
        out.skipped_rows = 0;
        out.skipped_lines.clear();
        out.first_skipped.clear();
        auto row = [&](std::size_t number, const char* end, auto&& parse) {
            bool more = true;
            try {
                trace_entry e = parse();
                ++out.rows_read;
                more = keeper.add(std::move(e), number);
            } catch (const trace_row_error& e) {
                std::string message = error_at(name, number, e.what());
                if (!options.skip_bad_rows) throw input_error(message);
                if (out.skipped_rows++ == 0) out.first_skipped = std::move(message);
                if (out.skipped_lines.size() < trace_skipped_lines_kept) out.skipped_lines.push_back(number);
            }
            read_past(end);
            return more;
        };
        if (jsonl)
            read_jsonl(text, out.columns, row);
        else
            read_csv(text, out.columns, options.delimiter, name, to_string(out.format), row);
        if (!keeper.again()) break;
        keeper.next_reading();
    }
    out.entries = keeper.take();
    return out;
}

}  // namespace

trace parse_trace(std::string_view text, std::string_view name, const trace_parse_options& options) {
    return parse_rows(text, name, options, [](const char*) {});
}

trace load_trace(const std::string& path, const trace_parse_options& options) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw input_error(path + ": cannot open trace file (" + std::strerror(errno) + ")");
    struct stat st {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!regular || st.st_size == 0) {
        // A pipe cannot be mapped: read whole.
        ::close(fd);
        std::ifstream in(path, std::ios::binary);
        if (!in) throw input_error(path + ": cannot open trace file (" + std::strerror(errno) + ")");
        std::ostringstream buffer;
        buffer << in.rdbuf();
        if (in.bad()) throw std::runtime_error(path + ": read error");
        return parse_trace(buffer.view(), path, options);
    }
    const auto size = std::size_t(st.st_size);
    void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_errno = errno;
    ::close(fd);
    if (mapped == MAP_FAILED) throw std::runtime_error(path + ": cannot map the trace file (" + std::strerror(map_errno) + ")");
    struct unmap {
        void* p;
        std::size_t n;
        ~unmap() { ::munmap(p, n); }
    } guard{mapped, size};
    ::madvise(mapped, size, MADV_SEQUENTIAL);
    const char* base = static_cast<const char*>(mapped);
    // Pages read past are handed back in steps, so that the resident part of
    // the file stays a few MiB however long it is. (As with any mapped file, one
    // cut short while it is read would end the process: a trace is not written
    // while it is replayed.)
    constexpr std::size_t step = 8u << 20;
    const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
    std::size_t released = 0;
    auto read_past = [&](const char* p) {
        const std::size_t done = std::size_t(p - base) / page * page;
        if (done < released) released = 0;  // read again from the start (trace_keeper.hpp)
        if (done < released + step) return;
        ::madvise(const_cast<char*>(base) + released, done - released, MADV_DONTNEED);
        released = done;
    };
    return parse_rows(std::string_view(base, size), path, options, read_past);
}

}  // namespace openloop
