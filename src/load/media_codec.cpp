#include "openloop/load/media_codec.hpp"

#include <jpeglib.h>
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace openloop {

std::string_view image_mime(image_format f) { return f == image_format::png ? "image/png" : "image/jpeg"; }

std::string encode_jpeg(const rgb_image& image, int quality) {
    jpeg_compress_struct c{};
    jpeg_error_mgr err{};
    c.err = jpeg_std_error(&err);
    // libjpeg's default error handler exits the process: only a bad size could
    // make it fail here, which the caller has ruled out.
    jpeg_create_compress(&c);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &buffer, &size);
    c.image_width = static_cast<JDIMENSION>(image.width);
    c.image_height = static_cast<JDIMENSION>(image.height);
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    jpeg_start_compress(&c, TRUE);
    const std::size_t stride = static_cast<std::size_t>(image.width) * 3;
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = const_cast<JSAMPROW>(image.pixels.data() + c.next_scanline * stride);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    std::string out(reinterpret_cast<const char*>(buffer), size);
    jpeg_destroy_compress(&c);
    std::free(buffer);
    return out;
}

namespace {

void png_append(png_structp png, png_bytep data, png_size_t n) {
    static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), n);
}

}  // namespace

std::string encode_png(const rgb_image& image) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        throw std::runtime_error("libpng: out of memory");
    }
    std::string out;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw std::runtime_error("libpng could not encode a " + std::to_string(image.width) + "x" +
                                 std::to_string(image.height) + " image");
    }
    png_set_write_fn(png, &out, png_append, nullptr);
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // Level 3: nearly level 6's size on photo-like pixels at twice its speed.
    png_set_compression_level(png, 3);
    png_write_info(png, info);
    const std::size_t stride = static_cast<std::size_t>(image.width) * 3;
    for (int y = 0; y < image.height; ++y) png_write_row(png, image.pixels.data() + y * stride);
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

namespace {

unsigned byte_at(std::string_view b, std::size_t i) { return static_cast<unsigned char>(b[i]); }
unsigned be16(std::string_view b, std::size_t i) { return byte_at(b, i) << 8 | byte_at(b, i + 1); }
std::uint32_t be32(std::string_view b, std::size_t i) { return std::uint32_t(be16(b, i)) << 16 | be16(b, i + 2); }

std::optional<image_header> read_jpeg(std::string_view b) {
    std::size_t at = 2;  // after SOI
    while (at + 4 <= b.size()) {
        if (byte_at(b, at) != 0xFF) return std::nullopt;
        const unsigned marker = byte_at(b, at + 1);
        if (marker == 0xFF) {  // fill byte
            ++at;
            continue;
        }
        // Markers without a length: TEM, RSTn, SOI.
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {
            at += 2;
            continue;
        }
        if (marker == 0xD9 || marker == 0xDA) return std::nullopt;  // EOI or scan data before any frame header
        const std::size_t length = be16(b, at + 2);
        if (length < 2) return std::nullopt;
        // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC): P, then height and width.
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            if (at + 9 > b.size() || length < 7) return std::nullopt;
            const int height = static_cast<int>(be16(b, at + 5));
            const int width = static_cast<int>(be16(b, at + 7));
            if (width == 0 || height == 0) return std::nullopt;
            return image_header{image_format::jpeg, width, height};
        }
        at += 2 + length;
    }
    return std::nullopt;
}

}  // namespace

std::optional<image_header> read_image_header(std::string_view b) {
    constexpr std::string_view png_signature("\x89PNG\r\n\x1a\n", 8);
    if (b.size() >= 24 && b.substr(0, 8) == png_signature && b.substr(12, 4) == "IHDR") {
        const std::uint32_t w = be32(b, 16), h = be32(b, 20);
        // PNG's limit is 2^31-1; no image a request carries comes near it.
        if (w == 0 || h == 0 || w > 0x7fffffff || h > 0x7fffffff) return std::nullopt;
        return image_header{image_format::png, static_cast<int>(w), static_cast<int>(h)};
    }
    if (b.size() >= 4 && byte_at(b, 0) == 0xFF && byte_at(b, 1) == 0xD8) return read_jpeg(b);
    return std::nullopt;
}

void append_base64(std::string& out, std::string_view bytes) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::size_t start = out.size();
    out.resize(start + (bytes.size() + 2) / 3 * 4);
    char* o = out.data() + start;
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t v = byte_at(bytes, i) << 16 | byte_at(bytes, i + 1) << 8 | byte_at(bytes, i + 2);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    if (i < bytes.size()) {
        const bool two = i + 1 < bytes.size();
        const std::uint32_t v = byte_at(bytes, i) << 16 | (two ? byte_at(bytes, i + 1) << 8 : 0);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = two ? alphabet[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
}

std::string data_url(std::string_view mime, std::string_view bytes) {
    std::string out;
    out.reserve(mime.size() + 13 + (bytes.size() + 2) / 3 * 4);
    out.append("data:").append(mime).append(";base64,");
    append_base64(out, bytes);
    return out;
}

}  // namespace openloop
