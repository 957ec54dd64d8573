#include "openloop/cli/media_options.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/quantity.hpp"
#include "openloop/cli/usage.hpp"

#include <string>

namespace openloop {

namespace po = boost::program_options;

po::options_description media_options() {
    po::options_description m("Images and audio (chat)", help_width, help_width / 2);
    m.add_options()
        ("images", po::value<std::string>(),
         "images per chat request, each an image_url content part after the prompt's text: N, or a "
         "distribution as --input-len spells one (uniform:1:4). Made and encoded before the run: a pool of "
         "fresh images as large as the run's --num-requests (or --rate x --duration) needs, at most 1,024 "
         "images and 256 MiB of base64 (fewer for big PNGs); fresh images repeat only past the pool (docs/media.md)")
        ("image-size", po::value<std::string>()->default_value("512x512"),
         "the made images' pixel sizes, WIDTHxHEIGHT[=WEIGHT],...: weighted buckets as vLLM's "
         "random-mm-bucket-config, e.g. 512x512=0.7,1024x768=0.3 (results are split by bucket)")
        ("image-format", po::value<std::string>()->default_value("jpeg"),
         "jpeg (about 0.15 bytes per pixel at quality 85, as a photo) or png (lossless, about 1.7)")
        ("image-quality", po::value<int>()->default_value(85), "JPEG quality, 1-100")
        ("image-reuse", po::value<std::string>()->default_value("0"),
         "the share of requests that send again the images (and clips) of one of the 64 requests before them, "
         "which a server's multimodal cache rewards; the rest send fresh ones. 0.3 or 30%")
        ("image-dir", po::value<std::string>(),
         "send these images instead of made ones: the directory's .jpg, .jpeg and .png files in name order, "
         "as they are (their sizes read from their headers), all held in memory: regular files only, at most "
         "256 MiB of base64 in all (about 192 MiB of files)")
        ("audios", po::value<int>()->default_value(0),
         "speech-like audio clips per chat request, each an input_audio part (WAV, PCM 16-bit mono 16 kHz, "
         "base64); at most 256 clips and 64 MiB are made ahead. --endpoint transcriptions needs 1: the clip is "
         "the request's file")
        ("audio-seconds", po::value<std::string>()->default_value("5"),
         "each clip's length in seconds: S, or a distribution as --input-len spells one (uniform:2:10)");
    return m;
}

void fill_media(const po::variables_map& vm, run_options& o) {
    const bool images = vm.count("images") > 0;
    const int audios = vm["audios"].as<int>();
    if (audios < 0 || audios > 64) throw usage_error("--audios must be 0-64, got " + std::to_string(audios));
    if (!images) {
        for (const char* name : {"image-size", "image-format", "image-quality", "image-dir"})
            if (vm.count(name) && !vm[name].defaulted()) throw usage_error(std::string("--") + name + " needs --images");
    }
    const bool transcriptions = o.endpoint == endpoint_kind::transcriptions;
    if (transcriptions && (images || audios != 1))
        throw usage_error("--endpoint transcriptions sends one clip per request: it needs --audios 1 and no --images");
    if (audios == 0 && !vm["audio-seconds"].defaulted()) throw usage_error("--audio-seconds needs --audios");
    if (!images && audios == 0) {
        if (!vm["image-reuse"].defaulted()) throw usage_error("--image-reuse needs --images or --audios");
        return;
    }
    if (o.endpoint != endpoint_kind::chat && !transcriptions)
        throw usage_error(std::string(images ? "--images" : "--audios") +
                          ": images and audio go in a chat message's content parts; they need --endpoint chat");
    media_config& m = o.media;
    try {
        if (images) {
            m.images = length_dist::parse(vm["images"].as<std::string>(), "--images");
            if (m.images->max() > 256) throw usage_error("--images: at most 256 images per request");
        }
        m.audios = audios;
        m.raw_audio = transcriptions;  // a form's file part is the WAV's bytes, not base64
        m.audio_seconds = length_dist::parse(vm["audio-seconds"].as<std::string>(), "--audio-seconds");
        if (m.audio_seconds.max() > 600) throw usage_error("--audio-seconds: at most 600 seconds per clip");
        m.reuse = parse_fraction(vm["image-reuse"].as<std::string>(), "--image-reuse");
        if (!images) return;
        const std::string format = vm["image-format"].as<std::string>();
        if (format != "jpeg" && format != "png") throw usage_error("--image-format must be jpeg or png, got '" + format + "'");
        m.format = format == "png" ? image_format::png : image_format::jpeg;
        m.quality = vm["image-quality"].as<int>();
        if (m.quality < 1 || m.quality > 100) throw usage_error("--image-quality must be 1-100, got " + std::to_string(m.quality));
        if (m.format == image_format::png && !vm["image-quality"].defaulted())
            throw usage_error("--image-quality is JPEG's; --image-format png is lossless");
        if (vm.count("image-dir")) {
            for (const char* name : {"image-size", "image-format", "image-quality"})
                if (!vm[name].defaulted())
                    throw usage_error(std::string("--") + name + " shapes made images; --image-dir sends its files as they are");
            m.image_dir = vm["image-dir"].as<std::string>();
        } else {
            m.image_sizes = parse_image_sizes(vm["image-size"].as<std::string>());
        }
    } catch (const std::invalid_argument& e) {  // input_error, and length_dist's
        throw usage_error(e.what());
    }
}

}  // namespace openloop
