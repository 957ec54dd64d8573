#pragma once
// Images and audio clips a chat request sends beside its text: what the
// run asks for (media_config, from cli/), and the set made and encoded ahead
// of the run (media_set), which requests point into by index. Nothing here is
// made on the io thread.

#include <cstdint>
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

struct media_config {
    // The size buckets images are drawn from, in the order given; empty: no generated images.
    std::vector<image_bucket> image_sizes;
};

}  // namespace openloop
