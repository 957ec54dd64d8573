#include "openloop/media/media_header.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace openloop {

namespace {

std::uint32_t be16(const unsigned char* p) { return std::uint32_t{p[0]} << 8 | p[1]; }
std::uint32_t be32(const unsigned char* p) { return be16(p) << 16 | be16(p + 2); }
std::uint32_t le16(const unsigned char* p) { return std::uint32_t{p[1]} << 8 | p[0]; }
std::uint32_t le32(const unsigned char* p) { return le16(p + 2) << 16 | le16(p); }

constexpr std::array<unsigned char, 8> png_signature{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

std::optional<image_size> png_size(const byte_source& in, std::string& err) {
    // Signature, then the IHDR chunk first of all: length 13, "IHDR", width, height.
    unsigned char h[24];
    if (!in.read(0, h, sizeof h)) {
        err = "truncated PNG: its header is cut short";
        return std::nullopt;
    }
    if (be32(h + 8) != 13 || std::memcmp(h + 12, "IHDR", 4) != 0) {
        err = "malformed PNG: the first chunk is not IHDR";
        return std::nullopt;
    }
    const std::uint32_t w = be32(h + 16), ht = be32(h + 20);
    // The PNG specification's limits: 1 .. 2^31-1 each way.
    if (w == 0 || ht == 0 || w > 0x7fffffffu || ht > 0x7fffffffu) {
        err = "malformed PNG: size " + std::to_string(w) + "x" + std::to_string(ht);
        return std::nullopt;
    }
    return image_size{w, ht, image_format::png};
}

// SOF0-3, 5-7, 9-11, 13-15: every frame header (C4 is DHT, C8 JPG, CC DAC).
bool is_sof(unsigned char m) { return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc; }
// Markers that stand alone, without a length: TEM, RST0-7, SOI.
bool standalone(unsigned char m) { return m == 0x01 || (m >= 0xd0 && m <= 0xd8); }

std::optional<image_size> jpeg_size(const byte_source& in, std::string& err) {
    std::size_t at = 2;  // past SOI
    for (;;) {
        unsigned char b = 0;
        if (!in.read(at, &b, 1)) break;
        if (b != 0xff) {
            err = "malformed JPEG: no marker at offset " + std::to_string(at);
            return std::nullopt;
        }
        // A marker may be preceded by any number of 0xFF fill bytes.
        while (b == 0xff && in.read(++at, &b, 1)) {}
        if (b == 0xff) break;
        const unsigned char marker = b;
        ++at;
        if (standalone(marker)) continue;
        if (marker == 0xd9 || marker == 0xda) {
            err = "malformed JPEG: no frame header (SOF) before its image data";
            return std::nullopt;
        }
        unsigned char len[2];
        if (!in.read(at, len, 2)) break;
        const std::uint32_t length = be16(len);  // counts its own two bytes
        if (length < 2) {
            err = "malformed JPEG: a segment of length " + std::to_string(length);
            return std::nullopt;
        }
        if (is_sof(marker)) {
            // Length, precision, height, width.
            unsigned char f[7];
            if (length < 8 || !in.read(at, f, sizeof f)) break;
            const std::uint32_t height = be16(f + 3), width = be16(f + 5);
            if (width == 0 || height == 0) {
                // Height 0 defers it to a DNL marker after the first scan: not a header's to say.
                err = "unsupported JPEG: size " + std::to_string(width) + "x" + std::to_string(height) + " in its frame header";
                return std::nullopt;
            }
            return image_size{width, height, image_format::jpeg};
        }
        at += length;  // APPn (EXIF, ICC profiles), DQT, DHT, COM...: skipped by their lengths
    }
    err = "truncated JPEG: cut short before its frame header (SOF)";
    return std::nullopt;
}

}  // namespace

bool span_source::read(std::size_t offset, unsigned char* out, std::size_t n) const {
    if (offset > bytes_.size() || n > bytes_.size() - offset) return false;
    std::memcpy(out, bytes_.data() + offset, n);
    return true;
}

std::optional<image_size> read_image_size(const byte_source& in, std::string& err) {
    unsigned char magic[8]{};
    const bool eight = in.read(0, magic, 8);
    if (eight && std::equal(png_signature.begin(), png_signature.end(), magic)) return png_size(in, err);
    if (in.read(0, magic, 3) && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff) return jpeg_size(in, err);
    err = "cannot identify image file: neither PNG nor JPEG";
    return std::nullopt;
}

std::optional<wav_info> read_wav(const byte_source& in, std::string& err) {
    unsigned char h[12];
    if (!in.read(0, h, sizeof h) || std::memcmp(h, "RIFF", 4) != 0 || std::memcmp(h + 8, "WAVE", 4) != 0) {
        err = "not a WAV file: no RIFF/WAVE header";
        return std::nullopt;
    }
    wav_info w;
    bool have_fmt = false;
    for (std::size_t at = 12;;) {
        unsigned char c[8];
        if (!in.read(at, c, sizeof c)) break;
        const std::uint64_t length = le32(c + 4);
        at += 8;
        if (std::memcmp(c, "fmt ", 4) == 0) {
            unsigned char f[16];
            if (length < 16 || !in.read(at, f, sizeof f)) break;
            w.channels = static_cast<int>(le16(f + 2));
            w.sample_rate = le32(f + 4);
            w.byte_rate = le32(f + 8);
            have_fmt = true;
        } else if (std::memcmp(c, "data", 4) == 0) {
            if (!have_fmt) {
                err = "malformed WAV: its data chunk comes before its fmt chunk";
                return std::nullopt;
            }
            if (w.byte_rate <= 0 || w.channels <= 0 || w.sample_rate <= 0) {
                err = "malformed WAV: fmt says " + std::to_string(w.channels) + " channels, " +
                      std::to_string(w.sample_rate) + " Hz, " + std::to_string(w.byte_rate) + " bytes/s";
                return std::nullopt;
            }
            // A streamed file's data length may be a placeholder (0xFFFFFFFF): what is there counts.
            w.data_bytes = std::min<std::uint64_t>(length, in.size() - at);
            w.seconds = static_cast<double>(w.data_bytes) / static_cast<double>(w.byte_rate);
            return w;
        }
        at += length + (length & 1);  // chunks are padded to an even length
    }
    err = have_fmt ? "truncated WAV: no data chunk" : "truncated WAV: no fmt chunk";
    return std::nullopt;
}

}  // namespace openloop
