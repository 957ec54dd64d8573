#pragma once
// What an image's or an audio clip's header says, read without decoding a
// pixel or a sample: a PNG's IHDR or a JPEG's frame header (SOFn: baseline,
// progressive and the rest; APPn segments such as EXIF skipped by their
// lengths) for an image's size, a WAV's fmt and data chunks for a clip's
// length. Pure: the bytes come from a byte_source (memory, or base64 decoded
// on demand).

#include "openloop/media/base64.hpp"
#include "openloop/media/image_codec.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace openloop {

// Bytes read by offset: a header reader asks only for what it looks at.
class byte_source {
public:
    virtual ~byte_source() = default;
    virtual std::size_t size() const = 0;
    // out := bytes [offset, offset + n); false when they run past the end.
    virtual bool read(std::size_t offset, unsigned char* out, std::size_t n) const = 0;
};

// Bytes in memory.
class span_source final : public byte_source {
public:
    explicit span_source(std::span<const unsigned char> bytes) : bytes_(bytes) {}
    explicit span_source(std::string_view bytes)
        : bytes_(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()) {}
    std::size_t size() const override { return bytes_.size(); }
    bool read(std::size_t offset, unsigned char* out, std::size_t n) const override;

private:
    std::span<const unsigned char> bytes_;
};

// Base64 text, decoded on demand as it is read (base64.hpp).
class base64_source final : public byte_source {
public:
    explicit base64_source(const base64_view& v) : v_(v) {}
    std::size_t size() const override { return v_.size(); }
    bool read(std::size_t offset, unsigned char* out, std::size_t n) const override { return v_.read(offset, out, n); }

private:
    const base64_view& v_;
};

struct image_size {
    std::int64_t width = 0;
    std::int64_t height = 0;
    image_format format = image_format::jpeg;
};

// The size of a PNG or JPEG image; nullopt with err when the bytes are
// neither, or the header is cut short or malformed.
std::optional<image_size> read_image_size(const byte_source& in, std::string& err);

struct wav_info {
    int channels = 0;
    std::int64_t sample_rate = 0;  // frames per second
    std::int64_t byte_rate = 0;    // bytes per second of the data chunk
    std::uint64_t data_bytes = 0;  // what the data chunk holds (at most what is there)
    double seconds = 0;            // data_bytes / byte_rate
};

// A RIFF/WAVE file's format and length; nullopt with err when it is not one,
// or its fmt or data chunk is missing or cut short.
std::optional<wav_info> read_wav(const byte_source& in, std::string& err);

}  // namespace openloop
