#pragma once
// Encoded media as a request carries it: JPEG (libjpeg-turbo) and PNG
// (libpng) from RGB pixels, a JPEG or PNG file's pixel size read from its
// header alone, and base64 for the data URLs of chat content parts. The
// readers and base64 are pure; the encoders only call their libraries.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

enum class image_format { jpeg, png };

// "image/jpeg" or "image/png".
std::string_view image_mime(image_format f);

// 8-bit RGB pixels, row by row, width * height * 3 bytes.
struct rgb_image {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> pixels;
};

// quality: JPEG's 1-100 (4:2:0 chroma, as cameras and browsers write photos).
std::string encode_jpeg(const rgb_image& image, int quality);
// zlib's default level, no filter search beyond libpng's own.
std::string encode_png(const rgb_image& image);

struct image_header {
    image_format format = image_format::jpeg;
    int width = 0;
    int height = 0;
};
// The format and size a JPEG (its first SOFn frame header) or PNG (IHDR)
// file's bytes declare; nullopt when they are neither, or cut short before it.
std::optional<image_header> read_image_header(std::string_view bytes);

// Standard base64 with padding (RFC 4648 section 4), appended to out.
void append_base64(std::string& out, std::string_view bytes);
// "data:MIME;base64,..." for an image's encoded bytes.
std::string data_url(std::string_view mime, std::string_view bytes);

}  // namespace openloop
