#include <boost/test/unit_test.hpp>

// Images and audio on real sockets, against the simulator: every request's
// user message carries its text, then its images' image_url parts, then its
// clips' input_audio parts, whole (the simulator's log of each request's
// messages, its base64 decoded, is the media made or the files given, byte
// for byte), and the server answers each. Bodies of about a megabyte go out
// from the shared payloads (no copy) with a Content-Length that counts them.
// The server's usage counts the text exactly as intended and the media by
// its rule: openloop's media_tokens (prompt_tokens - input_tokens) equals what
// the server's log says its images and clips cost, request by request.

#include "openloop/cli/child_process.hpp"
#include "openloop/media/image_codec.hpp"
#include "openloop/media/media_header.hpp"
#include "openloop/sim/engine.hpp"
#include "hostile_case.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include <sys/stat.h>

BOOST_AUTO_TEST_SUITE(it_media)

namespace json = boost::json;
using namespace test_http;

namespace {

std::string unbase64(std::string_view s) {
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (const char c : s) {
        int v;
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else if (c == '+') v = 62;
        else if (c == '/') v = 63;
        else break;  // '=' padding
        acc = acc << 6 | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xff));
        }
    }
    return out;
}

// The user message's content parts of a request in the simulator's --log-content log.
const json::array& parts_of(const json::object& logged) {
    const json::array& messages = logged.at("messages").as_array();
    return messages.back().at("content").as_array();
}

// The bytes of an image part's data URL, after checking its prefix.
std::string image_bytes(const json::value& part, std::string_view mime) {
    BOOST_TEST(part.at("type") == "image_url");
    const std::string_view url = part.at("image_url").at("url").as_string();
    const std::string prefix = "data:" + std::string(mime) + ";base64,";
    BOOST_TEST(url.substr(0, prefix.size()) == prefix);
    return unbase64(url.substr(prefix.size()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(made_images_and_clips_reach_the_server_whole) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--log", sim_log, "--log-content"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "40", "--num-requests", "16", "--input-len", "24",
                                 "--output-len", "4", "--ignore-eos", "--images", "2", "--image-size",
                                 "64x48=1,40x40=1", "--image-reuse", "0.25", "--audios", "1", "--audio-seconds", "1",
                                 "--out", dir.file("out")},
                                dir.file("run.log"));
    const std::string printed = slurp(dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, printed);
    BOOST_TEST(printed.find("media: 32 images 64x48,40x40 jpeg q85") != std::string::npos, printed);
    sim.process.stop();
    const auto server = sim_log_by_id(sim_log);
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST_REQUIRE(requests.size() == 16u);
    std::set<std::string> images;
    std::int64_t text = 0, media = 0;
    for (const auto& r : requests) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        const json::object& s = server.at(std::string(r.at("id").as_string()));
        const json::array& parts = parts_of(s);
        BOOST_TEST_REQUIRE(parts.size() == 4u);
        BOOST_TEST(parts[0].at("type") == "text");
        for (int j = 1; j <= 2; ++j) {
            const std::string bytes = image_bytes(parts[j], "image/jpeg");
            std::string err;
            const auto header = openloop::read_image_size(openloop::span_source(bytes), err);
            BOOST_TEST_REQUIRE(header.has_value(), err);
            BOOST_TEST(((header->width == 64 && header->height == 48) || (header->width == 40 && header->height == 40)));
            images.insert(bytes);
        }
        BOOST_TEST(parts[3].at("type") == "input_audio");
        BOOST_TEST(parts[3].at("input_audio").at("format") == "wav");
        const std::string wav = unbase64(parts[3].at("input_audio").at("data").as_string());
        BOOST_TEST(wav.size() == 44u + 32'000u);  // 1 s of 16 kHz PCM16
        BOOST_TEST(wav.substr(0, 4) == "RIFF");
        // The server's count is the text's, exactly, and its media's, by its rule.
        BOOST_TEST(json_int(r.at("prompt_tokens")) == json_int(s.at("prompt_tokens")));
        BOOST_TEST(json_int(r.at("media_tokens")) == json_int(s.at("image_tokens")) + json_int(s.at("audio_tokens")));
        BOOST_TEST(json_int(r.at("prompt_tokens")) - json_int(r.at("media_tokens")) == json_int(r.at("input_tokens")));
        BOOST_TEST(json_int(r.at("images")) == 2);
        BOOST_TEST(json_int(r.at("audios")) == 1);
        text += json_int(r.at("input_tokens"));
        media += json_int(r.at("media_tokens"));
    }
    const json::object summary = read_json(dir.file("out/summary.json"));
    const json::object& tokens = summary.at("media").at("prompt_tokens").as_object();
    BOOST_TEST(json_int(tokens.at("text")) == text);
    BOOST_TEST(json_int(tokens.at("media")) == media);
    BOOST_TEST(json_int(summary.at("media").at("images")) == 32);
    // A quarter of the requests repeat an earlier one's pair; the rest are fresh.
    BOOST_TEST(images.size() < 32u);
    BOOST_TEST(images.size() >= 12u);
}

BOOST_AUTO_TEST_CASE(megabyte_bodies_go_out_whole) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--log", sim_log, "--log-content"});
    // Four 1024x768 PNGs: about 1.3 MB each before base64.
    const int rc = run_openloop({"--target", sim.url, "--rate", "10", "--num-requests", "2", "--input-len", "16",
                                 "--output-len", "2", "--images", "4", "--image-size", "1024x768", "--image-format",
                                 "png", "--image-reuse", "0.5", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    const auto server = sim_log_by_id(sim_log);
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        const json::array& parts = parts_of(server.at(std::string(r.at("id").as_string())));
        BOOST_TEST_REQUIRE(parts.size() == 5u);
        for (int j = 1; j <= 4; ++j) {
            const std::string bytes = image_bytes(parts[j], "image/png");
            BOOST_TEST(bytes.size() > 500'000u);
            std::string err;
            const auto header = openloop::read_image_size(openloop::span_source(bytes), err);
            BOOST_TEST_REQUIRE(header.has_value(), err);
            BOOST_TEST(header->width == 1024);
        }
    }
}

BOOST_AUTO_TEST_CASE(images_from_files_are_sent_as_they_are) {
    temp_dir dir;
    const std::filesystem::path samples = "/usr/share/matplotlib/mpl-data/sample_data";
    const std::filesystem::path images = dir.file("images");
    std::filesystem::create_directories(images);
    // Debian's python3-matplotlib (tools/deps --tests): a photo and a PNG drawing.
    std::filesystem::copy_file(samples / "grace_hopper.jpg", images / "a_hopper.jpg");
    std::filesystem::copy_file(samples / "logo2.png", images / "b_logo.png");
    std::filesystem::copy_file(samples / "README.txt", images / "notes.txt");  // not an image: left alone
    const std::string hopper = slurp((images / "a_hopper.jpg").string());
    const std::string logo = slurp((images / "b_logo.png").string());
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--log", sim_log, "--log-content"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "6", "--input-len", "16",
                                 "--output-len", "2", "--images", "1", "--image-dir", images.string(), "--out",
                                 dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    // Request i sends file i mod 2, in name order: the photo, then the drawing.
    const auto server = sim_log_by_id(sim_log);
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        const json::array& parts = parts_of(server.at(std::string(r.at("id").as_string())));
        BOOST_TEST_REQUIRE(parts.size() == 2u);
        const bool photo = r.at("index").as_int64() % 2 == 0;
        BOOST_TEST((image_bytes(parts[1], photo ? "image/jpeg" : "image/png") == (photo ? hopper : logo)));
        // Qwen2-VL's rule by hand: 512x600 rounds to 504x588, 18 x 21 merged patches; 560x120 to
        // 560x112, 20 x 4; each with its vision start and end tokens.
        BOOST_TEST(json_int(r.at("media_tokens")) == (photo ? 18 * 21 + 2 : 20 * 4 + 2));
    }

    // A file that is no image is named.
    std::filesystem::copy_file(samples / "README.txt", images / "c_broken.png");
    const int bad = run_openloop({"--target", "http://127.0.0.1:1", "--num-requests", "1", "--images", "1",
                                  "--image-dir", images.string()},
                                 dir.file("bad.log"));
    BOOST_TEST(bad == 2);
    BOOST_TEST(slurp(dir.file("bad.log")).find("c_broken.png: not a JPEG or PNG image") != std::string::npos,
               slurp(dir.file("bad.log")));
}

// What a directory of images may hold that is no image file: a FIFO (opening
// it would wait for a writer forever), a symlink to /dev/zero (endless
// bytes), a directory, a sparse file of 1 GB (more than the pool holds).
// Each is refused before it is read, exit 2, the file named with what it is,
// within a second or two and in the memory of a run that made no pool.
BOOST_AUTO_TEST_CASE(image_dir_reads_regular_files_within_the_pools_bound) {
    temp_dir dir;
    const std::filesystem::path images = dir.file("images");
    std::filesystem::create_directories(images);
    std::filesystem::copy_file("/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg", images / "a_hopper.jpg");
    const std::filesystem::path hostile = images / "b.png";
    struct entry {
        const char* name;
        std::function<void()> make;
        std::string said;
    };
    const std::vector<entry> entries{
        {"fifo", [&] { BOOST_TEST_REQUIRE(::mkfifo(hostile.c_str(), 0644) == 0); }, "a FIFO, not a regular file"},
        {"dev_zero", [&] { std::filesystem::create_symlink("/dev/zero", hostile); }, "a character device, not a regular file"},
        {"directory", [&] { std::filesystem::create_directory(hostile); }, "a directory, not a regular file"},
        {"sparse_1gb",
         [&] {
             std::ofstream{hostile};
             std::filesystem::resize_file(hostile, 1ull << 30);
         },
         "1073741824 bytes, more than the "},
    };
    for (const entry& e : entries) {
        std::filesystem::remove_all(hostile);
        e.make();
        const hostile::observation o = hostile::run_openloop_bounded(
            {"run", "--target", "http://127.0.0.1:1", "--num-requests", "1", "--images", "1", "--image-dir", images.string()},
            dir.file(std::string(e.name) + ".log"), hostile::wall_bound(10), {.rss_kill_mib = hostile::rss_bound(1024)});
        BOOST_TEST(o.ended_by_itself, e.name << ": killed after " << o.wall_s << " s at " << o.peak_rss_mib << " MiB");
        BOOST_TEST(o.wall_s < hostile::wall_bound(5), e.name << ": " << o.wall_s << " s");
        BOOST_TEST(o.peak_rss_mib < hostile::rss_bound(hostile::small_rss_mib), e.name << ": peak RSS " << o.peak_rss_mib << " MiB");
        BOOST_TEST(o.exit_status == 2, e.name << ": exit " << o.exit_status << "\n" << o.log);
        BOOST_TEST(o.log.find("--image-dir: " + hostile.string() + ": " + e.said) != std::string::npos, e.name << ": " << o.log);
    }
    BOOST_TEST(slurp(dir.file("sparse_1gb.log"))
                       .find(" bytes that fit in what the files before it leave of the 256 MiB of base64 an image pool holds") !=
                   std::string::npos,
               slurp(dir.file("sparse_1gb.log")));
}

BOOST_AUTO_TEST_CASE(media_flags_need_the_chat_endpoint) {
    temp_dir dir;
    const int rc = run_openloop({"--target", "http://127.0.0.1:1", "--endpoint", "completions", "--images", "1"},
                                dir.file("run.log"));
    BOOST_TEST(rc == 2);
    BOOST_TEST(slurp(dir.file("run.log")).find("--images: images and audio go in a chat message's content parts") !=
                   std::string::npos,
               slurp(dir.file("run.log")));
    const int quality = run_openloop({"--target", "http://127.0.0.1:1", "--images", "1", "--image-quality", "101"},
                                     dir.file("q.log"));
    BOOST_TEST(quality == 2);
    BOOST_TEST(slurp(dir.file("q.log")).find("--image-quality must be 1-100") != std::string::npos);
}

// TTFT grows with the images a request carries, by what the cost model charges each one: its
// encoder's time and its tokens' prefill. At 6 requests/s the engine is mostly idle, so a
// request's TTFT is its own prefill step.
BOOST_AUTO_TEST_CASE(ttft_grows_with_image_count_as_the_cost_model_says) {
    temp_dir dir;
    // An image costs 37 ms here (the preset's encoder launch raised from 1 ms to 25), so
    // the steps from 1 to 4 images stand well above a loaded machine's scheduling delays;
    // 167 ms apart, even a 4-image request's prefill ends before the next one arrives.
    constexpr double encode_ms = 25;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--media-encode-ms", "25"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "6", "--arrival", "constant", "--num-requests", "48",
                                 "--input-len", "32", "--output-len", "2", "--ignore-eos", "--images", "uniform:1:4",
                                 "--image-size", "448x448", "--image-reuse", "0", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const json::object summary = read_json(dir.file("out/summary.json"));
    const json::array& rows = summary.at("media").at("ttft_by_images").as_array();
    std::map<std::int64_t, double> p50;
    for (const auto& row : rows) p50[json_int(row.at("images"))] = row.at("p50_ttft_ms").to_number<double>();
    BOOST_TEST_REQUIRE(p50.size() == 4u);
    // 448x448 is 16 x 16 merged patches and 2: 258 tokens, all computed (no image repeats).
    const openloop::cost_model m = openloop::find_preset("h100-8b").value();
    const double per_image = encode_ms + 258 * (m.media_encode_token_ms + m.prefill_token_ms);
    for (std::int64_t k = 2; k <= 4; ++k) BOOST_TEST(p50[k] > p50[k - 1], k << " images");
    const double slope = (p50[4] - p50[1]) / 3;
    BOOST_TEST(slope > 0.6 * per_image, slope << " ms per image, the model says " << per_image);
    BOOST_TEST(slope < 1.6 * per_image, slope << " ms per image, the model says " << per_image);
}

// vLLM's /v1/audio/transcriptions: each request a multipart form with one clip, whose tokens are
// the prompt (the server's count, request by request) and whose speech is the answer, streamed as
// transcription.chunk objects: 3.3 tokens a second of clip, each timed as a chat chunk.
BOOST_AUTO_TEST_CASE(transcriptions_are_forms_whose_clips_the_server_counts) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--log", sim_log});
    const int rc = run_openloop({"--target", sim.url, "--endpoint", "transcriptions", "--rate", "20", "--num-requests",
                                 "12", "--audios", "1", "--audio-seconds", "uniform:1:4", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const int whole = run_openloop({"--target", sim.url, "--endpoint", "transcriptions", "--no-stream", "--rate", "20",
                                    "--num-requests", "4", "--request-id-prefix", "whole-", "--audios", "1", "--audio-seconds", "2", "--out",
                                    dir.file("whole")},
                                   dir.file("whole.log"));
    BOOST_TEST_REQUIRE(whole == 0, slurp(dir.file("whole.log")));
    sim.process.stop();
    const auto server = sim_log_by_id(sim_log);
    std::set<std::int64_t> lengths;
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        const json::object& s = server.at(std::string(r.at("id").as_string()));
        BOOST_TEST(s.at("endpoint").as_string() == "/v1/audio/transcriptions");
        BOOST_TEST(json_int(s.at("audios")) == 1);
        BOOST_TEST(json_int(r.at("input_tokens")) == 0);
        BOOST_TEST(json_int(r.at("media_tokens")) == json_int(s.at("audio_tokens")));
        BOOST_TEST(json_int(r.at("prompt_tokens")) == json_int(s.at("prompt_tokens")));
        const std::int64_t seconds = (json_int(s.at("audio_tokens")) - 2) / 25;
        lengths.insert(seconds);
        BOOST_TEST(json_int(r.at("output_tokens")) == std::llround(static_cast<double>(seconds) * 3.3));
        BOOST_TEST(json_int(r.at("output_tokens")) == json_int(s.at("completion_tokens")));
        BOOST_TEST(r.at("ttft_ms").to_number<double>() > 0);
    }
    BOOST_TEST(lengths.size() >= 2u);  // the clips' lengths were drawn, not one
    // Unstreamed: vLLM's {"text", "usage": {"type": "duration"}}, no token counts, the text's characters read.
    for (const auto& r : read_jsonl(dir.file("whole/requests.jsonl"))) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        BOOST_TEST(r.at("e2e_ms").to_number<double>() > 0);
    }
}

// vLLM's HTTP stack (FastAPI over uvicorn) reads the same parts, made ones and real files, and
// counts them by the same rule.
BOOST_AUTO_TEST_CASE(uvicorn_counts_each_requests_images_and_audio) {
    temp_dir dir;
    auto server = openloop::start_server({"/usr/bin/python3",
                                          std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                          "--port", "0"},
                                         std::chrono::seconds(30));
    const int rc = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--rate", "20", "--num-requests",
                                 "8", "--input-len", "20", "--output-len", "4", "--tokenizer", "words", "--images",
                                 "2", "--image-size", "448x448", "--audios", "1", "--audio-seconds", "2", "--out",
                                 dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST(requests.size() == 8u);
    for (const auto& r : requests) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        // Two images of 16 x 16 merged patches and 2; 2 s of audio at 25 tokens/s and 2.
        BOOST_TEST(json_int(r.at("media_tokens")) == 2 * (16 * 16 + 2) + (2 * 25 + 2));
        BOOST_TEST(json_int(r.at("body_bytes")) > 85'392);  // the clip's 64,044 bytes in base64, and more
    }

    // A transcription form, read by Python's own MIME parser (the email package): the clip
    // arrives whole (2 s of audio: 52 tokens) and the stream is read to its 7 tokens.
    const int heard = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--endpoint", "transcriptions",
                                    "--rate", "20", "--num-requests", "4", "--audios", "1", "--audio-seconds", "2",
                                    "--out", dir.file("heard")},
                                   dir.file("heard.log"));
    BOOST_TEST_REQUIRE(heard == 0, slurp(dir.file("heard.log")));
    for (const auto& r : read_jsonl(dir.file("heard/requests.jsonl"))) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        BOOST_TEST(json_int(r.at("media_tokens")) == 2 * 25 + 2);
        BOOST_TEST(json_int(r.at("output_tokens")) == 7);
    }

    // Real files, a photo and a drawing: the server reads their headers as they are.
    const std::filesystem::path samples = "/usr/share/matplotlib/mpl-data/sample_data";
    const std::filesystem::path images = dir.file("images");
    std::filesystem::create_directories(images);
    std::filesystem::copy_file(samples / "grace_hopper.jpg", images / "a_hopper.jpg");
    std::filesystem::copy_file(samples / "logo2.png", images / "b_logo.png");
    const int files = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--rate", "20", "--num-requests",
                                    "4", "--input-len", "20", "--output-len", "4", "--tokenizer", "words", "--images",
                                    "1", "--image-dir", images.string(), "--out", dir.file("files")},
                                   dir.file("files.log"));
    BOOST_TEST_REQUIRE(files == 0, slurp(dir.file("files.log")));
    for (const auto& r : read_jsonl(dir.file("files/requests.jsonl"))) {
        const bool photo = r.at("index").as_int64() % 2 == 0;
        BOOST_TEST(json_int(r.at("media_tokens")) == (photo ? 18 * 21 + 2 : 20 * 4 + 2));  // as against the sim
    }
}

BOOST_AUTO_TEST_SUITE_END()
