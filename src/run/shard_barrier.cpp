#include "openloop/run/shard_barrier.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/base/output_file.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <pthread.h>

namespace openloop {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::optional<std::string> read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

stage_mark mark_from(const fs::path& file, const std::string& text) {
    try {
        const json::object o = json::parse(text).as_object();
        stage_mark m;
        m.shard = static_cast<int>(o.at("shard").as_int64());
        m.end_wall_ns = o.at("end_wall_ns").as_int64();
        m.interrupted = o.at("interrupted").as_bool();
        m.overloaded = o.at("overloaded").as_bool();
        m.stopped_early = o.at("stopped_early").as_string();
        return m;
    } catch (const std::exception& e) {
        throw std::runtime_error(file.string() + ": not a shard's stage mark (" + e.what() + ")");
    }
}

}  // namespace

bool sleep_unless_signalled(double seconds) {
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    const auto ns = static_cast<std::int64_t>(std::max(0.0, seconds) * 1e9);
    const timespec timeout{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    int got = -1;
    do {
        got = sigtimedwait(&set, nullptr, &timeout);
    } while (got < 0 && errno == EINTR);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return got > 0;
}

shard_barrier::shard_barrier(fs::path dir, shard_spec shard, double timeout_s)
    : dir_(std::move(dir)), shard_(shard), timeout_s_(timeout_s) {}

fs::path shard_barrier::part_dir(const std::string& stage) const { return part_dir(stage, shard_.index); }

fs::path shard_barrier::part_dir(const std::string& stage, int shard) const {
    return dir_ / stage / ("shard-" + std::to_string(shard) + "-of-" + std::to_string(shard_.count));
}

fs::path shard_barrier::mark_file(const std::string& stage, int shard) const {
    return part_dir(stage, shard).string() + ".done";
}

std::optional<std::vector<stage_mark>> shard_barrier::meet(const std::string& stage, stage_mark mine) {
    mine.shard = shard_.index;
    fs::create_directories(dir_ / stage);
    write_file_replacing(mark_file(stage, shard_.index).string(),
                         json::serialize(json::object{{"shard", mine.shard},
                                                      {"end_wall_ns", mine.end_wall_ns},
                                                      {"interrupted", mine.interrupted},
                                                      {"overloaded", mine.overloaded},
                                                      {"stopped_early", mine.stopped_early}}));
    const std::int64_t deadline = wall_now_ns() + static_cast<std::int64_t>(timeout_s_ * 1e9);
    bool said = false;
    for (;;) {
        std::vector<stage_mark> marks;
        std::string missing;
        for (int i = 0; i < shard_.count; ++i) {
            const fs::path file = mark_file(stage, i);
            if (const auto text = read_text(file)) {
                marks.push_back(mark_from(file, *text));
            } else {
                missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(shard_.count);
            }
        }
        if (missing.empty()) return marks;
        if (const auto why = read_text(dir_ / "stop")) {
            stop_reason_ = "another shard stopped the sweep: " + *why;
            return std::nullopt;
        }
        if (wall_now_ns() > deadline)
            throw std::runtime_error("sweep: shards " + missing + " did not finish " + stage + " within " +
                                     std::to_string(static_cast<int>(timeout_s_)) + " s of shard " +
                                     std::to_string(shard_.index) + "/" + std::to_string(shard_.count) +
                                     " (their shard-I-of-N.done marks are missing in " + (dir_ / stage).string() +
                                     "; --barrier-timeout waits longer)");
        if (!said) {
            std::fprintf(stderr, "openloop: waiting for shards %s to finish %s\n", missing.c_str(), stage.c_str());
            said = true;
        }
        if (sleep_unless_signalled(0.1)) {
            stop("shard " + std::to_string(shard_.index) + "/" + std::to_string(shard_.count) + " was interrupted");
            stop_reason_ = "interrupted at the barrier after " + stage;
            return std::nullopt;
        }
    }
}

void shard_barrier::stop(const std::string& why) {
    fs::create_directories(dir_);
    write_file_replacing((dir_ / "stop").string(), why);
}

}  // namespace openloop
