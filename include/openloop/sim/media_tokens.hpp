#pragma once
// How many prompt tokens an image or an audio clip becomes, by a model
// family's rule. Qwen2-VL / Qwen2.5-VL (the default): the image is resized,
// keeping its aspect, to multiples of 28 px (14 px patches merged 2x2) with
// its pixels within [min, max] (Qwen's smart_resize), one token per 28x28
// cell, plus the vision start and end tokens; LLaVA-1.5: a fixed 576 per
// image. Audio: tokens per second of sound (Qwen2-Audio: 25), plus its start
// and end tokens. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

struct image_token_rule {
    enum class kind { patch, fixed };
    kind rule = kind::patch;
    int patch = 28;                          // px per token cell, each way
    std::int64_t min_pixels = 3136;          // 4 cells (Qwen2-VL's preprocessor_config)
    std::int64_t max_pixels = 12'845'056;    // 16384 cells (the same)
    int fixed = 576;                         // tokens per image (kind::fixed)
};

struct media_token_rule {
    image_token_rule image;
    double audio_tokens_per_s = 25;
};

// Tokens a media item adds beside its own: <|vision_start|> <|vision_end|>
// (Qwen2-VL) or <|audio_bos|> <|audio_eos|> (Qwen2-Audio). A fixed rule adds none.
inline constexpr int media_delimiter_tokens = 2;

// "patch:P[,min=N][,max=N]" or "fixed:N"; nullopt with err naming what is wrong.
std::optional<image_token_rule> parse_image_token_rule(std::string_view text, std::string& err);
std::string to_string(const image_token_rule& r);

// Qwen's smart_resize: each side rounded to the nearest multiple of P (half to
// even, as Python's round; at least P); then, when the area is over max,
// both scaled down by sqrt(area / max) and floored to multiples of P (at least
// P); when under min, scaled up by sqrt(min / area) and ceiled.
struct resized { std::int64_t width = 0, height = 0; };
resized smart_resize(const image_token_rule& r, std::int64_t width, std::int64_t height);

// Qwen refuses an image more than 200 times longer one way than the other.
inline constexpr double max_aspect_ratio = 200;

// The image's tokens: (height / P) x (width / P) after smart_resize plus the
// two delimiters, or the fixed count.
std::int64_t image_tokens(const image_token_rule& r, std::int64_t width, std::int64_t height);

// ceil(seconds x rate) plus the two delimiters.
std::int64_t audio_tokens(const media_token_rule& r, double seconds);

}  // namespace openloop
