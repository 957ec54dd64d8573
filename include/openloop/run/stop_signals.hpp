#pragma once
// SIGINT and SIGTERM before the run's io thread takes them (run_load's signal
// set): held, so that one arriving meanwhile waits for whoever takes it next
// instead of killing openloop with nothing written; and the steps before the
// run that take them themselves (a tokenizer's load), which the first one stops.

#include <functional>
#include <stop_token>
#include <string>

namespace openloop {

// Blocks SIGINT and SIGTERM on the calling thread and the threads it starts from
// now on (a sim: target's start, the steps below), and takes them back from a
// parent that ignored them (a script's `&` job starts with SIGINT ignored, where a
// signal would be dropped; the run's own handling takes it later in any case).
void hold_stop_signals();
// Unblocks them on the calling thread: run_load's signal set takes a held one now.
void release_stop_signals();

// Runs step on this thread with a stop token while a thread of its own waits for
// SIGINT or SIGTERM (held), saying "openloop: <what>; Ctrl-C stops the run" once the
// step took a second. The first signal says "openloop: interrupted while <what>:
// nothing was sent; writing the results" and requests the stop, which the step
// meets at its next stop point (step_stopped). True when no signal came; false when
// one did (the caller ends the run as interrupted, results written). What else the
// step throws is thrown here, unless a signal came.
bool run_interruptible(const std::function<void(const std::stop_token&)>& step, const std::string& what);

}  // namespace openloop
