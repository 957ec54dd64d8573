#include "openloop/media/media_maker.hpp"

#include "openloop/base/random.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace openloop {

namespace {

// One octave of value noise: random values on a grid of cell pixels,
// smoothly interpolated (smoothstep) between them.
class value_noise {
public:
    value_noise(int width, int height, int cell, request_rng& rng)
        : cell_(cell), cols_(width / cell + 2), values_(static_cast<std::size_t>(cols_) * (height / cell + 2)) {
        for (float& v : values_) v = static_cast<float>(unit_interval(rng) * 2 - 1);
        // The weights across one cell, the same for every cell.
        for (int i = 0; i < cell; ++i) {
            const float t = (i + 0.5f) / static_cast<float>(cell);
            fade_.push_back(t * t * (3 - 2 * t));
        }
    }
    float at(int x, int y) const {
        const int cx = x / cell_, cy = y / cell_;
        const float fx = fade_[x % cell_], fy = fade_[y % cell_];
        const float* row = &values_[static_cast<std::size_t>(cy) * cols_ + cx];
        const float top = row[0] + (row[1] - row[0]) * fx;
        const float bottom = row[cols_] + (row[cols_ + 1] - row[cols_]) * fx;
        return top + (bottom - top) * fy;
    }

private:
    int cell_;
    int cols_;
    std::vector<float> values_;
    std::vector<float> fade_;
};

std::uint8_t clamp_byte(float v) { return static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f)); }

}  // namespace

rgb_image make_image(int width, int height, std::uint64_t seed) {
    request_rng rng(seed);
    rgb_image image{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 3)};
    // A gradient between two colours across a random direction.
    std::array<float, 3> from{}, to{};
    for (int c = 0; c < 3; ++c) {
        from[c] = static_cast<float>(40 + unit_interval(rng) * 180);
        to[c] = static_cast<float>(40 + unit_interval(rng) * 180);
    }
    const double angle = unit_interval(rng) * 6.283185307179586;
    const float dx = static_cast<float>(std::cos(angle)) / width, dy = static_cast<float>(std::sin(angle)) / height;
    // Texture: coarse to fine octaves, weaker as they get finer; colour varies at the coarsest.
    const int base = std::max(8, std::min(width, height) / 4);
    const value_noise coarse(width, height, base, rng), mid(width, height, std::max(4, base / 4), rng),
        fine(width, height, 8, rng), finest(width, height, 3, rng);
    const value_noise tint(width, height, base, rng);
    for (int y = 0; y < height; ++y) {
        std::uint8_t* px = &image.pixels[static_cast<std::size_t>(y) * width * 3];
        for (int x = 0; x < width; ++x, px += 3) {
            const float g = std::clamp(0.5f + x * dx + y * dy, 0.0f, 1.0f);
            const float light = 60 * coarse.at(x, y) + 30 * mid.at(x, y) + 18 * fine.at(x, y) + 12 * finest.at(x, y);
            const float t = 40 * tint.at(x, y);
            px[0] = clamp_byte(from[0] + (to[0] - from[0]) * g + light + t);
            px[1] = clamp_byte(from[1] + (to[1] - from[1]) * g + light);
            px[2] = clamp_byte(from[2] + (to[2] - from[2]) * g + light - t);
        }
    }
    // Shapes with hard edges: discs and rectangles of a shaded colour.
    const int shapes = 6 + static_cast<int>(below(rng, 6));
    for (int s = 0; s < shapes; ++s) {
        const bool disc = rng() & 1;
        const int cx = static_cast<int>(below(rng, width)), cy = static_cast<int>(below(rng, height));
        const int r = 4 + static_cast<int>(below(rng, std::max(1, std::min(width, height) / 5)));
        const float colour[3] = {static_cast<float>(unit_interval(rng) * 255), static_cast<float>(unit_interval(rng) * 255),
                                 static_cast<float>(unit_interval(rng) * 255)};
        for (int y = std::max(0, cy - r); y < std::min(height, cy + r); ++y) {
            for (int x = std::max(0, cx - r); x < std::min(width, cx + r); ++x) {
                if (disc && (x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r) continue;
                std::uint8_t* px = &image.pixels[(static_cast<std::size_t>(y) * width + x) * 3];
                const float shade = 0.75f + 0.25f * static_cast<float>(y - cy + r) / static_cast<float>(2 * r);
                for (int c = 0; c < 3; ++c) px[c] = clamp_byte(colour[c] * shade + 0.3f * (px[c] - 128));
            }
        }
    }
    // Sensor grain: a few levels, which JPEG keeps partly at quality 85.
    // Each draw grains 21 values, 3 bits each.
    std::uint64_t bits = 0;
    int left = 0;
    for (std::uint8_t& v : image.pixels) {
        if (left == 0) {
            bits = rng();
            left = 21;
        }
        const int grain = static_cast<int>(bits & 7) - 3;  // -3..4
        bits >>= 3;
        --left;
        v = static_cast<std::uint8_t>(std::clamp(v + grain, 0, 255));
    }
    return image;
}

std::string make_speech_wav(double seconds, std::uint64_t seed) {
    request_rng rng(seed);
    const std::size_t n = static_cast<std::size_t>(std::max(0.0, seconds) * audio_sample_rate);
    std::vector<std::int16_t> samples(n);
    constexpr double two_pi = 6.283185307179586;
    // Vowels' first two formants (Hz): a syllable glides towards its vowel's.
    constexpr double formants[][2] = {{730, 1090}, {270, 2290}, {530, 1840}, {570, 840}, {300, 870}, {660, 1720}};
    const double speaker = 100 + unit_interval(rng) * 120;  // the voice's mean pitch
    double phase = 0, f1 = 500, f2 = 1500;
    std::array<double, 48> gains{};
    std::size_t harmonics = 0;
    std::size_t at = 0;
    while (at < n) {
        // A syllable of 120-320 ms, sometimes a pause of 80-400 ms after it.
        const std::size_t length = static_cast<std::size_t>((0.12 + unit_interval(rng) * 0.2) * audio_sample_rate);
        const auto& vowel = formants[below(rng, std::size(formants))];
        const double pitch_from = speaker * (0.85 + unit_interval(rng) * 0.3), pitch_to = speaker * (0.85 + unit_interval(rng) * 0.3);
        const double loud = 0.3 + unit_interval(rng) * 0.5;
        for (std::size_t i = 0; i < length && at < n; ++i, ++at) {
            const double t = static_cast<double>(i) / static_cast<double>(length);
            f1 += (vowel[0] - f1) * 0.002;  // ~30 ms to glide
            f2 += (vowel[1] - f2) * 0.002;
            const double pitch = pitch_from + (pitch_to - pitch_from) * t;
            phase += two_pi * pitch / audio_sample_rate;
            if (phase > two_pi) phase -= two_pi;
            // Harmonics under 4 kHz, each as loud as the formants near it make it
            // (the gains follow the gliding formants every 4 ms).
            if (i % 64 == 0) {
                harmonics = 0;
                for (int h = 1; h * pitch < 4000 && harmonics < gains.size(); ++h, ++harmonics) {
                    const double f = h * pitch, a = (f - f1) / 120, b = (f - f2) / 180;
                    gains[harmonics] = 1 / (1 + a * a) + 0.6 / (1 + b * b) + 0.02;
                }
            }
            double v = 0;
            for (std::size_t h = 0; h < harmonics; ++h) v += gains[h] * std::sin(phase * static_cast<double>(h + 1));
            const double envelope = std::sin(3.141592653589793 * t);
            const double breath = (unit_interval(rng) - 0.5) * 0.05;
            samples[at] = static_cast<std::int16_t>(std::clamp((v * 0.25 * envelope * loud + breath) * 32767, -32767.0, 32767.0));
        }
        if (unit_interval(rng) < 0.3) {
            const std::size_t pause = static_cast<std::size_t>((0.08 + unit_interval(rng) * 0.32) * audio_sample_rate);
            for (std::size_t i = 0; i < pause && at < n; ++i, ++at)
                samples[at] = static_cast<std::int16_t>((unit_interval(rng) - 0.5) * 200);
        }
    }
    // RIFF header: little-endian fields, 44 bytes.
    std::string wav;
    wav.reserve(44 + n * 2);
    const auto u32 = [&wav](std::uint32_t v) {
        for (int i = 0; i < 4; ++i) wav.push_back(static_cast<char>(v >> (8 * i)));
    };
    const auto u16 = [&wav](std::uint16_t v) {
        wav.push_back(static_cast<char>(v & 0xff));
        wav.push_back(static_cast<char>(v >> 8));
    };
    const auto data_bytes = static_cast<std::uint32_t>(n * 2);
    wav.append("RIFF");
    u32(36 + data_bytes);
    wav.append("WAVEfmt ");
    u32(16);
    u16(1);  // PCM
    u16(1);  // mono
    u32(audio_sample_rate);
    u32(audio_sample_rate * 2);  // bytes per second
    u16(2);                      // bytes per frame
    u16(16);                     // bits per sample
    wav.append("data");
    u32(data_bytes);
    for (const std::int16_t s : samples) u16(static_cast<std::uint16_t>(s));
    return wav;
}

}  // namespace openloop
