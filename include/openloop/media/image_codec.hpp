#pragma once
// Images encoded as a request carries them: JPEG (libjpeg-turbo) and PNG
// (libpng) from RGB pixels. Reading an image's size back is media_header's,
// its data URL base64's. The encoders only call their libraries.

#include <cstdint>
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

}  // namespace openloop
