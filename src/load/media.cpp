#include "openloop/load/media.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/quantity.hpp"
#include "openloop/base/random.hpp"
#include "openloop/load/text_file.hpp"
#include "openloop/media/base64.hpp"
#include "openloop/media/media_header.hpp"
#include "openloop/media/media_maker.hpp"
#include "openloop/media/media_pool.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace openloop {

namespace {

constexpr std::uint64_t plan_salt = 0x6d656469612d706cULL;   // "media-pl"
constexpr std::uint64_t image_salt = 0x6d656469612d696dULL;  // "media-im"
constexpr std::uint64_t audio_salt = 0x6d656469612d6175ULL;  // "media-au"

request_rng index_rng(std::uint64_t seed, std::uint64_t index) { return request_rng(mix64(mix64(seed ^ plan_salt) ^ index)); }

}  // namespace

bool media_plan::reuses(std::uint64_t index) const {
    if (index == 0 || reuse <= 0) return false;
    request_rng rng = index_rng(seed, index);
    return unit_interval(rng) < reuse;
}

std::uint64_t media_plan::source(std::uint64_t index) const {
    if (!reuses(index)) return index;
    if (reuse >= 1) return 0;  // no request but the first sends fresh media
    request_rng rng = index_rng(seed, index);
    rng();  // the reuse draw
    std::uint64_t r = index - 1 - below(rng, std::min<std::uint64_t>(index, reuse_window));
    // Expected steps 1 / (1 - reuse): r is a request that sent its own.
    while (reuses(r)) --r;
    return r;
}

void media_plan::pick(std::uint64_t index, std::vector<std::uint32_t>& out) const {
    out.clear();
    const std::uint64_t from = source(index);
    request_rng rng = index_rng(seed, from);
    rng();  // the reuse draw
    if (has_images && image_pool > 0) {
        const int n = images.sample(rng);
        const auto per = static_cast<std::uint64_t>(images.max());
        for (int j = 0; j < n; ++j) out.push_back(static_cast<std::uint32_t>((from * per + j) % image_pool));
    }
    for (int k = 0; k < audios && audio_pool > 0; ++k)
        out.push_back(image_pool + static_cast<std::uint32_t>((from * audios + k) % audio_pool));
}

int pool_bucket(const std::vector<image_bucket>& buckets, std::uint64_t k) {
    double total = 0;
    for (const image_bucket& b : buckets) total += b.weight;
    // The golden ratio's fractional multiples fill [0, 1) evenly at every prefix.
    double u = std::fmod(static_cast<double>(k) * 0.6180339887498949 + 0.5, 1.0) * total;
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        u -= buckets[i].weight;
        if (u < 0) return static_cast<int>(i);
    }
    return static_cast<int>(buckets.size()) - 1;
}

std::vector<image_bucket> parse_image_sizes(std::string_view text) {
    const auto bad = [&text](const std::string& why) {
        return input_error("--image-size '" + std::string(text) + "': " + why +
                           " (WIDTHxHEIGHT[=WEIGHT],..., e.g. 512x512 or 512x512=0.7,1024x768=0.3)");
    };
    std::vector<image_bucket> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        std::string_view entry = text.substr(at, comma - at);
        image_bucket b;
        if (const std::size_t eq = entry.find('='); eq != std::string_view::npos) {
            b.weight = parse_number(entry.substr(eq + 1), "--image-size weight");
            if (!(b.weight > 0)) throw bad("a weight must be above 0");
            entry = entry.substr(0, eq);
        }
        const std::size_t x = entry.find('x');
        if (x == std::string_view::npos) throw bad("'" + std::string(entry) + "' is not WIDTHxHEIGHT");
        const std::int64_t w = parse_integer(entry.substr(0, x), "--image-size width");
        const std::int64_t h = parse_integer(entry.substr(x + 1), "--image-size height");
        // JPEG's limit is 65,535; no vision model takes more than a few thousand.
        if (w < 1 || h < 1 || w > 8192 || h > 8192) throw bad("width and height must be 1-8192 pixels");
        b.width = static_cast<int>(w);
        b.height = static_cast<int>(h);
        for (const image_bucket& o : out)
            if (o.width == b.width && o.height == b.height) throw bad(b.label() + " is given twice");
        out.push_back(b);
        at = comma + 1;
    }
    return out;
}

namespace {

std::string image_pool_limit() { return "the " + std::to_string(max_image_pool_bytes >> 20) + " MiB of base64 an image pool holds"; }

std::vector<media_item> read_image_dir(const std::string& dir) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string ext = it->path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
        if (ext == ".jpg" || ext == ".jpeg" || ext == ".png") files.push_back(it->path());
    }
    if (ec) throw input_error("--image-dir " + dir + ": " + ec.message());
    if (files.empty()) throw input_error("--image-dir " + dir + ": no .jpg, .jpeg or .png file in it");
    std::sort(files.begin(), files.end());
    std::vector<media_item> out;
    // The files are the pool, held to the made pool's bound: each is read no
    // further than what is left of it (base64 holds 3 bytes in 4).
    std::size_t held = 0;
    for (const auto& f : files) {
        const std::size_t left = max_image_pool_bytes - held;
        const std::string limit = held == 0 ? image_pool_limit() : "what the files before it leave of " + image_pool_limit();
        const std::string bytes = read_regular_file(f.string(), left / 4 * 3, "--image-dir", limit);
        std::string why;
        const auto header = read_image_size(span_source(bytes), why);
        if (!header) throw input_error("--image-dir: " + f.string() + ": not a JPEG or PNG image we can read (" + why + ")");
        media_item item;
        item.width = static_cast<int>(header->width);
        item.height = static_cast<int>(header->height);
        item.encoded_bytes = bytes.size();
        item.payload = data_url(image_mime(header->format), bytes);
        if (item.payload.size() > left)  // by its data URL's prefix
            throw input_error("--image-dir: " + f.string() + ": its data URL is more than " + limit);
        held += item.payload.size();
        out.push_back(std::move(item));
    }
    return out;
}

}  // namespace

media_set::media_set(const media_config& c, std::uint64_t seed, std::uint64_t expected_requests) {
    const auto start = std::chrono::steady_clock::now();
    plan_.seed = seed;
    plan_.reuse = c.reuse;
    plan_.audios = c.audios;
    std::vector<media_item> images;
    if (c.images) {
        plan_.has_images = true;
        plan_.images = *c.images;
        const auto per = static_cast<std::uint64_t>(c.images->max());
        if (!c.image_dir.empty()) {
            images = read_image_dir(c.image_dir);
            from_ = std::to_string(images.size()) + " images from " + c.image_dir;
        } else {
            // Enough that fresh images do not repeat within a count-bounded run.
            const std::uint64_t needed = expected_requests > 0 ? expected_requests * per : max_image_pool;
            const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(needed, max_image_pool));
            images = make_media_pool(count, max_image_pool_bytes, [&c, seed](std::size_t k) {
                media_item item;
                item.bucket = pool_bucket(c.image_sizes, k);
                const image_bucket& b = c.image_sizes[static_cast<std::size_t>(item.bucket)];
                item.width = b.width;
                item.height = b.height;
                const rgb_image pixels = make_image(b.width, b.height, mix64(mix64(seed ^ image_salt) ^ k));
                const std::string bytes = c.format == image_format::png ? encode_png(pixels) : encode_jpeg(pixels, c.quality);
                item.encoded_bytes = bytes.size();
                item.payload = data_url(image_mime(c.format), bytes);
                return item;
            });
            std::string sizes;
            for (const image_bucket& b : c.image_sizes) sizes += (sizes.empty() ? "" : ",") + b.label();
            from_ = std::to_string(images.size()) + " images " + sizes +
                    (c.format == image_format::png ? " png" : " jpeg q" + std::to_string(c.quality));
        }
        plan_.image_pool = static_cast<std::uint32_t>(images.size());
    }
    items_ = std::move(images);
    if (c.audios > 0) {
        const std::uint64_t needed = expected_requests > 0 ? expected_requests * static_cast<std::uint64_t>(c.audios) : max_audio_pool;
        const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(needed, max_audio_pool));
        std::vector<media_item> clips = make_media_pool(count, max_audio_pool_bytes, [&c, seed](std::size_t k) {
            request_rng rng(mix64(mix64(seed ^ audio_salt) ^ k));
            const int seconds = c.audio_seconds.sample(rng);
            const std::string wav = make_speech_wav(seconds, rng());
            media_item item;
            item.type = media_item::kind::audio;
            item.encoded_bytes = wav.size();
            if (c.raw_audio)
                item.payload = wav;
            else
                append_base64(item.payload, wav);
            return item;
        });
        plan_.audio_pool = static_cast<std::uint32_t>(clips.size());
        for (media_item& clip : clips) items_.push_back(std::move(clip));
    }
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::size_t media_set::payload_bytes() const {
    std::size_t n = 0;
    for (const media_item& i : items_) n += i.payload.size();
    return n;
}

std::string media_set::describe() const {
    std::size_t image_bytes = 0, pixels = 0, audio_bytes = 0;
    for (const media_item& i : items_) {
        if (i.type == media_item::kind::audio) {
            audio_bytes += i.encoded_bytes;
            continue;
        }
        image_bytes += i.encoded_bytes;
        pixels += static_cast<std::size_t>(i.width) * static_cast<std::size_t>(i.height);
    }
    char line[320];
    std::string out = "media:";
    if (plan_.image_pool > 0) {
        std::snprintf(line, sizeof line, " %s, %.0f KB each on average (%.3f bytes/pixel);", from_.c_str(),
                      static_cast<double>(image_bytes) / plan_.image_pool / 1e3,
                      pixels > 0 ? static_cast<double>(image_bytes) / static_cast<double>(pixels) : 0.0);
        out += line;
    }
    if (plan_.audio_pool > 0) {
        std::snprintf(line, sizeof line, " %u speech clips, %.0f KB of WAV;", plan_.audio_pool, static_cast<double>(audio_bytes) / 1e3);
        out += line;
    }
    // In MiB, the unit of the pools' bounds.
    std::snprintf(line, sizeof line, " %.1f MiB of payloads held, made in %.2f s",
                  static_cast<double>(payload_bytes()) / (1 << 20), seconds_);
    return out + line;
}

}  // namespace openloop
