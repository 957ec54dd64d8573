#pragma once
// A file openloop writes into a result directory, made new every time: the
// entry that had its name before (an old file, or a symlink planted in
// --out) is removed, never written through, and the file is created
// exclusively (O_EXCL | O_NOFOLLOW), so a name that turns into a symlink in
// between makes the open fail rather than write elsewhere. output_file is
// the stream the reporter's logs write line by line (requests.jsonl,
// timeseries.csv, a soak's windows); write_file_replacing a whole file
// (summary.json, run.json, report.html) written beside its name and renamed
// over it, so a reader never sees half of it.

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

class output_file : public std::ostream {
public:
    output_file();
    ~output_file() override;
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    // Creates path anew as above; throws std::runtime_error naming it and the
    // system's reason when it cannot.
    void open(const std::string& path);
    // The same, returning the errno of a failure (0: opened) for a caller that names the file itself.
    int try_open(const std::string& path);
    bool is_open() const { return buf_.fd >= 0; }
    // Writes what is buffered and closes; a failed write sets badbit.
    void close();

private:
    // Buffered writes to a descriptor.
    struct fd_buf : std::streambuf {
        int fd = -1;
        std::vector<char> buffer;
        void attach(int to);
        bool drain();   // false when a write failed
        bool detach();  // drains and closes; false when either failed

    protected:
        int_type overflow(int_type c) override;
        int sync() override;
    };
    fd_buf buf_;
};

// text as path's whole content: written to path + ".tmp" (made as output_file
// makes a file) and renamed over path. Throws std::runtime_error naming path.
void write_file_replacing(const std::string& path, std::string_view text);

}  // namespace openloop
