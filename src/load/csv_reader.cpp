#include "openloop/load/csv_reader.hpp"

#include <algorithm>
#include <array>

namespace openloop {

char detect_csv_delimiter(std::string_view header_line) {
    constexpr std::array<char, 4> candidates{',', ';', '\t', '|'};
    std::array<std::size_t, 4> counts{};
    bool quoted = false;
    for (char c : header_line) {
        if (c == '"') quoted = !quoted;
        if (quoted) continue;
        for (std::size_t i = 0; i < candidates.size(); ++i) counts[i] += c == candidates[i];
    }
    const auto best = std::max_element(counts.begin(), counts.end());  // the first of equals
    return *best == 0 ? ',' : candidates[std::size_t(best - counts.begin())];
}

csv_reader::csv_reader(std::string_view text, char delimiter) : text_(text), delimiter_(delimiter) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
}

bool csv_reader::next(csv_record& r) {
    if (pos_ >= text_.size()) return false;
    r.line = line_;
    r.error.clear();
    // A tab is a blank to trim unless it separates the fields.
    auto blank = [&](char c) { return c == ' ' || (c == '\t' && delimiter_ != '\t'); };
    auto at_end_of_field = [&](std::size_t p) {
        return p >= text_.size() || text_[p] == delimiter_ || text_[p] == '\n' ||
               (text_[p] == '\r' && (p + 1 >= text_.size() || text_[p + 1] == '\n'));
    };
    std::size_t n = 0;
    for (;;) {
        if (r.fields.size() <= n) r.fields.emplace_back();
        std::string& field = r.fields[n];
        field.clear();
        while (pos_ < text_.size() && blank(text_[pos_])) ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '"') {
            const std::size_t opened = line_;
            ++pos_;
            for (;;) {
                const std::size_t quote = text_.find('"', pos_);
                const std::string_view chunk = text_.substr(pos_, quote == std::string_view::npos ? text_.npos : quote - pos_);
                line_ += std::size_t(std::count(chunk.begin(), chunk.end(), '\n'));
                field.append(chunk);
                if (quote == std::string_view::npos) {
                    pos_ = text_.size();
                    r.error = "a quoted field opened on line " + std::to_string(opened) + " never closes";
                    r.fields.resize(n + 1);
                    return true;
                }
                pos_ = quote + 1;
                if (pos_ < text_.size() && text_[pos_] == '"') {
                    field.push_back('"');
                    ++pos_;
                    continue;
                }
                break;
            }
            while (pos_ < text_.size() && blank(text_[pos_])) ++pos_;
            if (!at_end_of_field(pos_) && r.error.empty())
                r.error = "field " + std::to_string(n + 1) + ": text after its closing quote";
            while (!at_end_of_field(pos_)) ++pos_;
        } else {
            const std::size_t start = pos_;
            while (!at_end_of_field(pos_)) ++pos_;
            std::size_t end = pos_;
            while (end > start && blank(text_[end - 1])) --end;
            field.assign(text_.substr(start, end - start));
        }
        if (pos_ < text_.size() && text_[pos_] == delimiter_) {
            ++pos_;
            ++n;
            continue;
        }
        if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '\n') {
            ++pos_;
            ++line_;
        }
        r.fields.resize(n + 1);
        return true;
    }
}

}  // namespace openloop
