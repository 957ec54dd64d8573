#include "openloop/cli/sim_media_options.hpp"

#include "openloop/cli/usage.hpp"

#include <cmath>
#include <string>

namespace openloop {

namespace po = boost::program_options;

po::options_description sim_media_options() {
    po::options_description m("Images and audio (chat content parts)", help_width, help_width / 2);
    m.add_options()
        ("image-tokens", po::value<std::string>()->default_value(to_string(image_token_rule{})),
         "prompt tokens per image, read from its PNG or JPEG header: patch:P,min=N,max=N resizes it as Qwen2-VL "
         "and Qwen2.5-VL do (sides to multiples of P px, its area within [min, max] pixels) and counts one token "
         "per PxP cell plus 2 (vision start and end); fixed:N counts N per image (LLaVA-1.5: fixed:576)")
        ("audio-tokens-per-s", po::value<double>()->default_value(25),
         "prompt tokens per second of WAV audio (input_audio parts, and a transcription's clip, whose answer "
         "is 3.3 tokens a second of it), rounded up, plus 2 (audio start and end); Qwen2-Audio: 25")
        ("media-encode-ms", po::value<double>(),
         "encoder cost per image or audio clip, ms, charged in the step of the request's first prefill chunk "
         "(preset: h100-8b 1, cpu-small 5, firehose 0)")
        ("media-encode-token-ms", po::value<double>(),
         "encoder cost per image or audio token, ms, charged with --media-encode-ms (preset: h100-8b 0.012, a "
         "675M-parameter ViT; cpu-small 0.02; firehose 0)");
    return m;
}

void fill_sim_media(const po::variables_map& vm, sim_config& c) {
    std::string err;
    const auto rule = parse_image_token_rule(vm["image-tokens"].as<std::string>(), err);
    if (!rule) throw usage_error("sim: --image-tokens: " + err);
    c.media.image = *rule;
    c.media.audio_tokens_per_s = vm["audio-tokens-per-s"].as<double>();
    if (!(c.media.audio_tokens_per_s >= 0 && c.media.audio_tokens_per_s <= 10'000))
        throw usage_error("sim: --audio-tokens-per-s must be from 0 to 10000");
    for (auto [flag, field] : {std::pair{"media-encode-ms", &c.model.media_encode_ms},
                               std::pair{"media-encode-token-ms", &c.model.media_encode_token_ms}}) {
        if (!vm.count(flag)) continue;
        *field = vm[flag].as<double>();
        if (!(*field >= 0 && std::isfinite(*field)))
            throw usage_error(std::string("sim: --") + flag + " must be a finite number, not negative");
    }
}

}  // namespace openloop
