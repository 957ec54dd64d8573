#pragma once
// Base64 (RFC 4648 section 4, with padding) both ways: written for the data
// URLs of chat content parts, and read as the bytes it encodes, a few at a
// time, so that a media header reader decodes the bytes it looks at and no
// others (a JPEG's EXIF block is skipped by its length, never decoded). Pure:
// no allocation after make.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// Standard base64 with padding appended to out.
void append_base64(std::string& out, std::string_view bytes);
// "data:MIME;base64,..." for an image's encoded bytes.
std::string data_url(std::string_view mime, std::string_view bytes);

class base64_view {
public:
    // The view of text when it is base64 (RFC 4648's standard alphabet, a length
    // that is a multiple of 4, at most two '=' and only at the end); otherwise
    // nullopt with err saying what is wrong and where.
    static std::optional<base64_view> make(std::string_view text, std::string& err);

    std::size_t size() const { return size_; }  // bytes encoded
    // out := bytes [offset, offset + n); false when they run past the end.
    bool read(std::size_t offset, unsigned char* out, std::size_t n) const;

private:
    explicit base64_view(std::string_view text, std::size_t size) : text_(text), size_(size) {}
    std::string_view text_;
    std::size_t size_ = 0;
};

}  // namespace openloop
