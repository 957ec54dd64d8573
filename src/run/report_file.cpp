#include "openloop/run/report_file.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/results/run_html.hpp"
#include "openloop/results/sweep_html.hpp"

#include <boost/json.hpp>

#include <exception>
#include <iostream>
#include <thread>

namespace openloop {

namespace {

boost::json::object read_object(const result_dir& dir, std::string_view name) {
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(dir.read(name), ec);
    if (ec || !v.is_object()) throw input_error(dir.file(name).string() + ": not JSON (" + ec.message() + ")");
    return std::move(v.as_object());
}

}  // namespace

std::filesystem::path write_report_html(const result_dir& dir) {
    const std::string title = dir.path().filename().empty() ? dir.path().parent_path().filename().string()
                                                           : dir.path().filename().string();
    std::string page;
    if (dir.is_sweep()) {
        page = sweep_report_html(title, read_object(dir, result_file::sweep_json));
    } else {
        page = run_report_html(title, read_object(dir, result_file::summary_json),
                               dir.read_if_any(result_file::timeseries_csv).value_or(""),
                               dir.read_if_any(result_file::windows_jsonl).value_or(""));
    }
    dir.write_text(result_file::report_html, page);
    return dir.file(result_file::report_html);
}

std::optional<std::filesystem::path> try_write_report_html(const result_dir& dir) {
    // Drawn on a thread of its own: the caller is the io thread (between a
    // sweep's stages too), which only moves bytes; the page's formatting,
    // which grows with the run's seconds, is none of its work (it_allocations
    // counts the io thread's allocations to the process's end).
    std::optional<std::filesystem::path> written;
    std::thread([&] {
        try {
            written = write_report_html(dir);
        } catch (const std::exception& e) {
            std::cerr << "openloop: " << dir.file(result_file::report_html).string() << " not written: " << e.what()
                      << "\n";
        }
    }).join();
    return written;
}

}  // namespace openloop
