#pragma once
// `openloop sim`'s multimodal flags: how images and audio count as prompt
// tokens (--image-tokens, --audio-tokens-per-s) and what their encoder costs
// (--media-encode-ms, --media-encode-token-ms, over the preset's).

#include "openloop/sim/config.hpp"

#include <boost/program_options.hpp>

namespace openloop {

boost::program_options::options_description sim_media_options();
// Throws usage_error naming the flag at fault. After the preset is in c.model.
void fill_sim_media(const boost::program_options::variables_map& vm, sim_config& c);

}  // namespace openloop
