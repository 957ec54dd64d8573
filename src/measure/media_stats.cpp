#include "openloop/measure/media_stats.hpp"

#include "openloop/measure/request_metrics.hpp"

#include <algorithm>
#include <utility>

namespace openloop {

// A row's TTFT at the run's 3 significant digits: 264 KiB a row, a few rows in a run (33
// image rows at most, and one per --image-size bucket).
constexpr int row_digits = 3;

media_tokens media_tokens_of(const request_timeline& r) {
    if (!r.has_media() || r.prompt_tokens < 0) return {};
    return {true, r.prompt_tokens - r.input_tokens};
}

media_row::media_row(std::string row_label)
    : label(std::move(row_label)), ttft(histogram::default_highest, row_digits) {}

media_stats::media_stats(std::vector<std::string> bucket_labels)
    : body_bytes(histogram::default_highest, 3), labels_(std::move(bucket_labels)) {}

void media_stats::sent(std::int64_t bytes, std::int32_t image_count, std::int32_t audio_count) {
    ++requests;
    images += std::max(image_count, 0);
    audios += std::max(audio_count, 0);
    body_bytes_total += std::max<std::int64_t>(bytes, 0);
    body_bytes.record(bytes);
}

void media_stats::completed(const media_outcome& o) {
    if (o.tokens.known) {
        ++counted;
        text_tokens += o.input_tokens;
        counted_images += o.images;
        if (o.tokens.count < 0) ++negative;
        media_tokens += std::max<std::int64_t>(o.tokens.count, 0);
    }
    media_row& row = image_row(o.images);
    ++row.requests;
    if (o.ttft >= 0) row.ttft.record(o.ttft);
    if (o.images <= 0 || o.bucket.empty()) return;
    media_row& b = bucket_row(o.bucket);
    ++b.requests;
    if (o.ttft >= 0) b.ttft.record(o.ttft);
}

void media_stats::completed(const request_timeline& r, const request_metrics& m) {
    completed(media_outcome{r.images, r.images > 0 ? bucket_label(r.bucket) : std::string_view(), m.ttft, r.input_tokens,
                            media_tokens_of(r)});
}

std::string_view media_stats::bucket_label(std::int32_t bucket) const {
    if (bucket >= 0 && static_cast<std::size_t>(bucket) < labels_.size()) return labels_[static_cast<std::size_t>(bucket)];
    // An index past the labels given (a writer's bug, or no labels plumbed) still gets a row.
    return bucket < 0 ? "mixed" : "?";
}

media_row& media_stats::image_row(std::int32_t count) {
    const auto i = static_cast<std::size_t>(std::clamp(count, 0, max_image_rows));
    while (by_images.size() <= i) {
        const auto n = static_cast<int>(by_images.size());
        by_images.emplace_back(std::to_string(n) + (n == max_image_rows ? "+" : ""));
    }
    return by_images[i];
}

media_row& media_stats::bucket_row(std::string_view label) {
    for (media_row& row : by_bucket)
        if (row.label == label) return row;
    return by_bucket.emplace_back(std::string(label));
}

}  // namespace openloop
