#pragma once
// The rows of a trace that its selection keeps (trace.hpp), as they are read
// one by one, so that a long trace costs what is selected: its window, from
// the earliest row's time, and its count, the window's earliest rows.
//
// Rows in time order are kept as they come, and the reading stops once no
// later row can be selected. A row earlier than one before it (openloop's own
// log is in completion order) moves the window after rows were passed over:
// the file is then read again, once for its earliest time, once more for the
// window's rows, of which only the count's earliest are held. A selection of
// every row keeps every row. Pure: entries in, entries out.

#include "openloop/load/trace.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openloop {

class trace_keeper {
public:
    explicit trace_keeper(const trace_selection& selection);

    // The row parsed at line (lines rise through the file); false when no
    // later row of this reading can be kept, so the reading may stop.
    bool add(trace_entry&& entry, std::size_t line);
    // After a reading: true when the file must be read again from its first
    // row, once next_reading() was called.
    bool again() const;
    void next_reading();

    // The kept rows in time order (rows of one time in file order), at_ns
    // relative to the earliest row read.
    std::vector<trace_entry> take();

private:
    enum class reading { all, in_order, find_origin, in_window };
    struct row {
        std::int64_t at_ns;
        std::size_t line;
        trace_entry entry;
    };
    static bool before(const row& a, const row& b);
    bool in_window(std::int64_t at_ns) const;

    trace_selection selection_;
    reading reading_;
    bool out_of_order_ = false;
    bool seen_ = false;
    std::int64_t origin_ = 0;  // the earliest time read (in order: the first)
    std::int64_t last_ = 0;
    std::vector<trace_entry> kept_;  // in file order
    std::vector<row> earliest_;      // in_window with a count instead: a max-heap of the earliest
};

}  // namespace openloop
