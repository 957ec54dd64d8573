#pragma once
// The media flags (--images, --image-size, --image-format, --image-quality,
// --image-reuse, --image-dir, --audios, --audio-seconds): images and audio
// clips a chat request sends (load/media.hpp).

#include "openloop/run/runner.hpp"

#include <boost/program_options.hpp>

namespace openloop {

boost::program_options::options_description media_options();
// Fills o.media; needs o.endpoint filled. Throws usage_error naming the flag at fault.
void fill_media(const boost::program_options::variables_map& vm, run_options& o);

}  // namespace openloop
