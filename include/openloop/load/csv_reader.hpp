#pragma once
// Splits CSV text into records of fields, RFC 4180 style: any one-byte
// delimiter, quoted fields (doubled quotes inside, delimiters and line breaks
// inside), LF or CRLF, a missing final line break. A quote opens a quoted
// field only at the field's start; elsewhere it is text. Unquoted fields are
// trimmed of blanks. Pure logic: text in, fields out.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// The delimiter a header line implies: the most frequent of , ; tab | outside
// quotes (',' on a tie or when none occurs).
char detect_csv_delimiter(std::string_view header_line);

struct csv_record {
    std::size_t line = 0;             // where the record starts, from 1
    std::vector<std::string> fields;  // one empty field for a blank line
    std::string error;                // non-empty: the record is malformed (fields are partial)

    bool blank() const { return fields.size() == 1 && fields[0].empty() && error.empty(); }
};

class csv_reader {
public:
    // text must outlive the reader; a UTF-8 BOM at its start is skipped.
    csv_reader(std::string_view text, char delimiter);

    // The next record into r (its vectors reused); false at the end.
    bool next(csv_record& r);
    // How far into text the records read so far reach, in bytes.
    std::size_t offset() const { return pos_; }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    char delimiter_;
};

}  // namespace openloop
