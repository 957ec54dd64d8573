// The request side of images (tools/bench/media): how fast images are
// encoded, how many requests per second request_builder makes ready with
// images beside text-only ones, and (--write DIR N W H) N photo-like JPEGs of
// W x H written to DIR for the run against the simulator.

#include "openloop/load/media.hpp"
#include "openloop/media/base64.hpp"
#include "openloop/media/media_maker.hpp"
#include "openloop/run/request_builder.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/runner.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace openloop;
using bench_clock = std::chrono::steady_clock;

namespace {

double seconds_since(bench_clock::time_point t) { return std::chrono::duration<double>(bench_clock::now() - t).count(); }

void encoding(image_format format, int width, int height) {
    constexpr int n = 12;
    std::vector<rgb_image> images;
    const auto made = bench_clock::now();
    for (int i = 0; i < n; ++i) images.push_back(make_image(width, height, 1000 + i));
    const double make_s = seconds_since(made);
    std::size_t bytes = 0;
    const auto start = bench_clock::now();
    for (const rgb_image& im : images) {
        const std::string encoded = format == image_format::png ? encode_png(im) : encode_jpeg(im, 85);
        bytes += data_url(image_mime(format), encoded).size() * 3 / 4;
    }
    const double s = seconds_since(start);
    const double raw_mb = static_cast<double>(width) * height * 3 * n / 1e6;
    std::printf("  %-4s %4dx%-4d  encode+base64 %7.1f MB/s of pixels (%6.1f images/s)  %.3f bytes/pixel  "
                "making the pixels %5.1f ms/image\n",
                format == image_format::png ? "png" : "jpeg", width, height, raw_mb / s, n / s,
                static_cast<double>(bytes) / (static_cast<double>(width) * height * n), make_s * 1e3 / n);
}

// Requests made ready per second by request_builder, with images images of 1024x768 each.
double ready_per_second(int images) {
    run_options o;
    o.target = parse_target_url("http://127.0.0.1:8000");
    o.model = "m";
    auto prepared = std::make_shared<preparation>();
    prepared->model = "m";
    prepared->models = model_mix("m");
    if (images > 0) {
        o.media.images = length_dist::fixed(images);
        o.media.image_sizes = {image_bucket{1024, 768, 1}};
        prepared->media = std::make_shared<const media_set>(o.media, 1, 64 / images);
    }
    const run_plan plan(o, prepared);
    request_builder builder(plan);
    request_spec spec;
    for (int i = 0; i < 512; ++i) spec.prompt += "word ";
    spec.input_tokens = 512;
    spec.max_tokens = 128;
    std::uint64_t i = 0;
    const auto start = bench_clock::now();
    double s = 0;
    do {
        for (int k = 0; k < 1000; ++k, ++i) {
            prepared_request p = builder.build(spec, i);
            builder.recycle(p);
        }
        s = seconds_since(start);
    } while (s < 1.0);
    return static_cast<double>(i) / s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 6 && std::string(argv[1]) == "--write") {
        const int n = std::stoi(argv[3]), w = std::stoi(argv[4]), h = std::stoi(argv[5]);
        for (int i = 0; i < n; ++i) {
            std::ofstream out(std::string(argv[2]) + "/image" + std::to_string(100 + i) + ".jpg", std::ios::binary);
            out << encode_jpeg(make_image(w, h, 77 + i), 85);
        }
        return 0;
    }
    std::printf("images encoded (12 each, one thread; JPEG quality 85, PNG zlib level 3)\n");
    for (const auto format : {image_format::jpeg, image_format::png})
        for (const auto& [w, h] : {std::pair{512, 512}, std::pair{1024, 768}}) encoding(format, w, h);
    std::printf("requests made ready by request_builder (512-word prompt, 1024x768 JPEGs, one thread)\n");
    const double text = ready_per_second(0);
    std::printf("  text only   %10.0f req/s\n", text);
    for (const int images : {1, 4}) {
        const double r = ready_per_second(images);
        std::printf("  %d image%s    %10.0f req/s  (%.2f of text only)\n", images, images > 1 ? "s" : " ", r, r / text);
    }
    return 0;
}
