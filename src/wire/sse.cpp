#include "openloop/wire/sse.hpp"

#include <charconv>
#include <cstring>

namespace openloop {

namespace {

constexpr char bom[] = "\xEF\xBB\xBF";
constexpr std::uint8_t bom_size = 3;

bool all_digits(std::string_view s) {
    if (s.empty())
        return false;
    for (const char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

// The first CR or LF from `from`: memchr for each (vectorized), since a
// line is mostly a chunk's JSON.
std::size_t find_eol(std::string_view s, std::size_t from) {
    const char* b = s.data() + from;
    const std::size_t n = s.size() - from;
    const auto* lf = static_cast<const char*>(std::memchr(b, '\n', n));
    const std::size_t until = lf ? static_cast<std::size_t>(lf - b) : n;
    if (const auto* cr = static_cast<const char*>(std::memchr(b, '\r', until))) return from + static_cast<std::size_t>(cr - b);
    return lf ? from + until : std::string_view::npos;
}

}  // namespace

bool sse_parser::in_event() const {
    if (ready_)
        return false;
    return !line_.empty() || fields_seen_ || (!bom_done_ && bom_matched_ > 0);
}

void sse_parser::reset() {
    line_.clear();
    data_.clear();
    event_type_.clear();
    last_event_id_.clear();
    retry_ms_.reset();
    comments_ = 0;
    events_ = 0;
    bom_matched_ = 0;
    bom_done_ = false;
    pending_cr_ = false;
    data_seen_ = false;
    fields_seen_ = false;
    ready_ = false;
    error_ = sse_error::none;
}

void sse_parser::fail(sse_error e) {
    error_ = e;
    line_.clear();
    data_.clear();
}

std::size_t sse_parser::advance(std::string_view bytes) {
    if (ready_) {
        ready_ = false;
        data_.clear();
        event_type_.clear();
        data_seen_ = false;
        fields_seen_ = false;
    }
    if (error_ != sse_error::none)
        return bytes.size();

    std::size_t pos = 0;
    if (!bom_done_) {
        while (pos < bytes.size() && bom_matched_ < bom_size && bytes[pos] == bom[bom_matched_]) {
            ++bom_matched_;
            ++pos;
        }
        if (bom_matched_ == bom_size) {
            bom_done_ = true;
        } else if (pos < bytes.size()) {
            // Not a BOM after all: the bytes matched so far start the first line.
            line_.append(bom, bom_matched_);
            bom_done_ = true;
        } else {
            return pos;
        }
    }
    if (pending_cr_ && pos < bytes.size()) {
        pending_cr_ = false;
        if (bytes[pos] == '\n')
            ++pos;
    }

    while (pos < bytes.size()) {
        const std::size_t eol = find_eol(bytes, pos);
        if (eol == std::string_view::npos) {
            if (line_.size() + (bytes.size() - pos) > max_event_bytes_) {
                fail(sse_error::event_too_large);
                return bytes.size();
            }
            line_.append(bytes.substr(pos));
            return bytes.size();
        }
        std::string_view line = bytes.substr(pos, eol - pos);
        if (!line_.empty()) {
            line_.append(line);
            line = line_;
        }
        pos = eol + 1;
        if (bytes[eol] == '\r') {
            if (pos == bytes.size())
                pending_cr_ = true;
            else if (bytes[pos] == '\n')
                ++pos;
        }
        process_line(line);
        line_.clear();
        if (error_ != sse_error::none)
            return bytes.size();
        if (ready_)
            return pos;
    }
    return pos;
}

void sse_parser::append_data(std::string_view value) {
    const std::size_t size = data_.size() + (data_seen_ ? 1 : 0) + value.size();
    if (size > max_event_bytes_) {
        fail(sse_error::event_too_large);
        return;
    }
    if (data_seen_)
        data_ += '\n';
    data_.append(value);
    data_seen_ = true;
}

void sse_parser::process_line(std::string_view line) {
    // Checked per line as well as per event so that the verdict does not depend
    // on where the slices were split.
    if (line.size() > max_event_bytes_) {
        fail(sse_error::event_too_large);
        return;
    }
    if (line.empty()) {
        if (data_seen_) {
            ready_ = true;
            ++events_;
        } else {
            event_type_.clear();
            fields_seen_ = false;
        }
        return;
    }
    if (line.front() == ':') {
        ++comments_;
        return;
    }
    fields_seen_ = true;

    std::string_view field = line;
    std::string_view value;
    if (const auto colon = line.find(':'); colon != std::string_view::npos) {
        field = line.substr(0, colon);
        value = line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ')
            value.remove_prefix(1);
    }

    if (field == "data") {
        append_data(value);
    } else if (field == "error") {
        // llama.cpp writes an error in the stream as an `error: {...}` line,
        // a field the spec ignores, and then `data: [DONE]`: ignored, the
        // failed request would read as completed.
        event_type_.assign("error");
        append_data(value);
    } else if (field == "event") {
        event_type_.assign(value);
    } else if (field == "id") {
        // The spec ignores ids containing NUL (they could not be sent back in a header).
        if (value.find('\0') == std::string_view::npos)
            last_event_id_.assign(value);
    } else if (field == "retry") {
        std::uint64_t ms = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
        if (all_digits(value) && ec == std::errc() && end == value.data() + value.size())
            retry_ms_ = ms;
    }
}

}  // namespace openloop
