#pragma once
// A result directory as a whole: what a run, a sweep, a soak or a merge writes
// into one, and what report, merge, compare and a sharded sweep's stages read
// back from one, with errors that name the file. The files' names are
// base/result_files.hpp's (measure/ writes its logs by them, below this).
//
// In run/: reading a directory back yields results/ types (run_context,
// merge_input), and results/ stays pure (text in, values out), so the file
// I/O sits one step up, where the runner and the sweep that write the files
// already are; cli/ reaches it from above.

#include "openloop/base/result_files.hpp"
#include "openloop/results/merge.hpp"
#include "openloop/results/run_context.hpp"

#include <boost/json/fwd.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// Reads throw input_error naming the file (exit 2: the user named a
// directory that is not what they meant); writes throw std::runtime_error
// "cannot write PATH: why".
class result_dir {
public:
    explicit result_dir(std::filesystem::path path) : path_(std::move(path)) {}

    const std::filesystem::path& path() const { return path_; }
    // name: one of result_file's.
    std::filesystem::path file(std::string_view name) const { return path_ / name; }
    bool has(std::string_view name) const;
    // A sweep's directory (one with sweep.json), not a run's.
    bool is_sweep() const { return has(result_file::sweep_json); }

    // The whole file; throws input_error "cannot read PATH".
    std::string read(std::string_view name) const;
    // The whole file; nullopt when there is none.
    std::optional<std::string> read_if_any(std::string_view name) const;
    // run.json; nullopt when there is none; throws input_error
    // "PATH: not an openloop run.json (why)".
    std::optional<run_context> run_json() const;

    // Throws input_error unless this is a run's result directory (one holding
    // a requests.jsonl; a sweep's stages are, the sweep itself is not).
    void check_run() const;
    // Its requests.jsonl, sessions.jsonl, run.json and summary.json's verdict,
    // to be merged; throws input_error naming the directory or file that is
    // missing or not an openloop result.
    merge_input read_merge_input() const;

    // Pretty JSON, written beside and renamed over the file (a reader never
    // sees half of it).
    void write_json(std::string_view name, const boost::json::value& value) const;
    void write_text(std::string_view name, std::string_view text) const;
    void write_run_json(const run_context& context) const;
    // requests.jsonl, sessions.jsonl (a sessions run's), run.json and
    // summary.json of a merge; the directory is created.
    void write_merged(const merged_result& merged) const;
    // `openloop report`: an unreadable summary.json renamed to
    // summary.json.unreadable, which is returned; throws input_error when it
    // cannot be.
    std::filesystem::path set_summary_aside() const;

private:
    std::filesystem::path path_;
};

// A sweep stage's directory name in the sweep's: stage-NN-RATEps, or
// stage-NN-cN for a closed-loop stage (concurrency > 0).
std::string stage_dir_name(std::size_t index, double rate, int concurrency);

}  // namespace openloop
