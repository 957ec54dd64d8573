#pragma once
// What a run with images or audio sent beside its text, and what it cost: requests
// that carried media, images and clips, the bytes of their bodies, the prompt tokens
// the server counted split into text (what openloop wrote, exact) and media (the
// rest), and TTFT by image count and by image size bucket. Kept only in a run with
// media (run_stats::media).

#include "openloop/measure/histogram.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// request_metrics.hpp (which includes run_stats.hpp, and that this header).
struct request_timeline;
struct request_metrics;

// A request's media tokens: the server's prompt tokens less the text openloop wrote.
// Unknown without usage (a negative count is possible, so a flag says it).
struct media_tokens {
    bool known = false;     // the server gave usage.prompt_tokens and the request carried media
    std::int64_t count = 0; // prompt_tokens - input_tokens; negative: the server counted less than the text
};
media_tokens media_tokens_of(const request_timeline& r);

// Completed requests in one row of a breakdown and their TTFT.
struct media_row {
    explicit media_row(std::string row_label = {});
    std::string label;  // "0", "1", ... images; a bucket's "1024x768", or "mixed"
    std::uint64_t requests = 0;
    histogram ttft;
};

// Image counts above this share its row, labelled "N+".
inline constexpr int max_image_rows = 32;

// A completed, measured request as the breakdowns count it (from its timeline, or its log line).
struct media_outcome {
    std::int32_t images = 0;
    std::string_view bucket;  // its row's label; empty: no images, no bucket row
    std::int64_t ttft = -1;   // ns; -1: none
    std::int64_t input_tokens = 0;
    media_tokens tokens;
};

struct media_stats {
    // bucket_labels: --image-size's buckets in order (a bucket index is a place in it).
    explicit media_stats(std::vector<std::string> bucket_labels = {});

    std::uint64_t requests = 0;  // measured requests started that carried media
    std::int64_t images = 0, audios = 0;
    std::int64_t body_bytes_total = 0;
    histogram body_bytes;  // per media request, bytes
    // Completed media requests whose usage gave prompt_tokens: their text and media split.
    std::uint64_t counted = 0;
    std::int64_t text_tokens = 0;   // their input_tokens, summed (exact)
    std::int64_t media_tokens = 0;  // their media tokens, summed; a negative one counts as 0 here
    std::int64_t counted_images = 0;  // their images, for media tokens per image
    std::uint64_t negative = 0;     // ... whose prompt_tokens fell short of the text: the server's count is off
    std::vector<media_row> by_images;  // row i: completed requests with i images (the last: max_image_rows+)
    std::vector<media_row> by_bucket;  // by the images' size bucket (requests with images only)

    // A measured request's media event.
    void sent(std::int64_t body_bytes, std::int32_t images, std::int32_t audios);
    // A completed, measured request (with media or without: the 0-image row).
    void completed(const media_outcome& o);
    void completed(const request_timeline& r, const request_metrics& m);
    // The label of a bucket index (-1: "mixed").
    std::string_view bucket_label(std::int32_t bucket) const;

private:
    std::vector<std::string> labels_;
    media_row& image_row(std::int32_t images);
    media_row& bucket_row(std::string_view label);  // rows in the order their labels first came
};

}  // namespace openloop
