#pragma once
// Images and audio clips a chat request sends beside its text: what the
// run asks for (media_config, from cli/), and the set made and encoded ahead
// of the run (media_set), which requests point into by index. Nothing here is
// made on the io thread.

#include "openloop/load/length_dist.hpp"
#include "openloop/media/image_codec.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

// One entry of --image-size: the images' pixel size and its share of them.
struct image_bucket {
    int width = 0;
    int height = 0;
    double weight = 1;
    std::string label() const { return std::to_string(width) + "x" + std::to_string(height); }
};

class media_set;

struct media_config {
    // The size buckets images are drawn from, in the order given; empty: no generated images.
    std::vector<image_bucket> image_sizes;
    std::optional<length_dist> images;  // images per request (--images); none: no images
    image_format format = image_format::jpeg;
    int quality = 85;                   // JPEG's
    double reuse = 0;                   // share of requests that send an earlier request's media again
    std::string image_dir;              // images from these files instead of made ones
    int audios = 0;                     // clips per request
    length_dist audio_seconds = length_dist::fixed(5);
    bool raw_audio = false;             // clips as their WAV bytes (a transcription's form), not base64

    bool wanted() const { return images.has_value() || audios > 0; }
};

// One image or clip as a request sends it: the data URL of an image, the
// base64 of a clip's WAV file (its bytes as they are with raw_audio), encoded
// once and shared by every request.
struct media_item {
    enum class kind : std::uint8_t { image, audio };
    kind type = kind::image;
    std::string payload;
    int width = 0, height = 0;  // an image's
    int bucket = -1;            // its --image-size entry; -1: a file's
    std::size_t encoded_bytes = 0;  // before base64
};

// Where a request's media comes from, a pure function of the run's seed and
// its global index (so shards and reruns agree). images fresh images and
// audios clips are in the set (images first); a request with reuse sends
// the media of the nearest request without reuse within reuse_window before
// it; one without sends pool entries (index * per-request maximum + j) mod
// pool size, so a pool of P fresh images is not repeated for P / max requests.
struct media_plan {
    length_dist images = length_dist::fixed(1);
    bool has_images = false;
    int audios = 0;
    double reuse = 0;
    std::uint32_t image_pool = 0;
    std::uint32_t audio_pool = 0;
    std::uint64_t seed = 0;
    static constexpr std::uint64_t reuse_window = 64;

    // Whether request index sends an earlier request's media.
    bool reuses(std::uint64_t index) const;
    // The request whose fresh media index sends (index itself when it reuses none).
    std::uint64_t source(std::uint64_t index) const;
    // index's media as indices into the set, images then clips, into out (cleared).
    void pick(std::uint64_t index, std::vector<std::uint32_t>& out) const;
};

// The bounds on the media made ahead: at most this many items and bytes of
// base64 each; fewer when the run's count bound needs fewer.
inline constexpr std::size_t max_image_pool = 1024;
inline constexpr std::size_t max_image_pool_bytes = std::size_t{256} << 20;
inline constexpr std::size_t max_audio_pool = 256;
inline constexpr std::size_t max_audio_pool_bytes = std::size_t{64} << 20;

class media_set {
public:
    // Makes (or reads, from --image-dir) and encodes every item, on as many
    // threads as the machine has. expected_requests: the run's count bound
    // (0: none), which bounds the pools further. Throws input_error naming
    // a bad file.
    media_set(const media_config& c, std::uint64_t seed, std::uint64_t expected_requests);

    const media_item& item(std::uint32_t i) const { return items_[i]; }
    std::size_t size() const { return items_.size(); }
    const media_plan& plan() const { return plan_; }
    void pick(std::uint64_t index, std::vector<std::uint32_t>& out) const { plan_.pick(index, out); }
    std::size_t payload_bytes() const;
    // One line for stderr: what was made, its bytes per pixel, memory and time.
    std::string describe() const;

private:
    std::vector<media_item> items_;
    media_plan plan_;
    double seconds_ = 0;
    std::string from_;  // what the images are: made at sizes, or a directory
};

// The bucket each generated pool entry k has: the buckets' weights laid out
// evenly over the pool (a low-discrepancy walk), so any prefix of the pool
// holds them in their proportions.
int pool_bucket(const std::vector<image_bucket>& buckets, std::uint64_t k);

// "WxH[=weight],..." into buckets; throws input_error naming --image-size.
std::vector<image_bucket> parse_image_sizes(std::string_view text);

}  // namespace openloop
