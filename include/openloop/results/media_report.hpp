#pragma once
// A run with images or audio (run_stats::media): summary.json's "media" object and the
// table's section. Media tokens are the server's prompt tokens less the text openloop
// wrote (exact), so they are whatever the server counted for the images and clips. Pure.

#include "openloop/measure/media_stats.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace openloop {

// {requests, images, audios, images_per_request, audios_per_request, body_bytes {mean,
// p50, p99, max, total}, prompt_tokens {requests, text, media, media_per_image,
// negative}, ttft_by_images [{images, requests, p50_ttft_ms, p90_ttft_ms}],
// ttft_by_bucket [{bucket, ...}]}.
boost::json::object media_json(const media_stats& m);

// The table's lines: what was sent, the token split, and TTFT by image count and bucket.
std::vector<std::string> media_lines(const media_stats& m);

}  // namespace openloop
