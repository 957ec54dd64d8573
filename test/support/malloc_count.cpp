// Counts the allocations a process makes on its main thread: preloaded
// (LD_PRELOAD) into the real openloop binary, whose main thread is its io
// thread, by it_allocations. malloc, realloc and the aligned allocators (Asio
// takes its operations' memory from aligned_alloc) are counted; at exit the
// count is written to the file named by OPENLOOP_MALLOC_COUNT_FILE.

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<unsigned long> main_thread_allocations{0};
__thread int on_main __attribute__((tls_model("initial-exec"))) = -1;

void count() {
    if (on_main < 0) on_main = syscall(SYS_gettid) == getpid();
    if (on_main) main_thread_allocations.fetch_add(1, std::memory_order_relaxed);
}

template <class F>
F next(F, const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

struct report {
    ~report() {
        const char* path = std::getenv("OPENLOOP_MALLOC_COUNT_FILE");
        if (path == nullptr) return;
        if (std::FILE* f = std::fopen(path, "w")) {
            std::fprintf(f, "%lu\n", main_thread_allocations.load());
            std::fclose(f);
        }
    }
} at_exit;

}  // namespace

extern "C" {

void* malloc(std::size_t n) {
    static auto real = next(&malloc, "malloc");
    count();
    return real(n);
}

void* realloc(void* p, std::size_t n) {
    static auto real = next(&realloc, "realloc");
    count();
    return real(p, n);
}

void* aligned_alloc(std::size_t align, std::size_t n) {
    static auto real = next(&aligned_alloc, "aligned_alloc");
    count();
    return real(align, n);
}

int posix_memalign(void** p, std::size_t align, std::size_t n) {
    static auto real = next(&posix_memalign, "posix_memalign");
    count();
    return real(p, align, n);
}

void* memalign(std::size_t align, std::size_t n) {
    static auto real = next(&memalign, "memalign");
    count();
    return real(align, n);
}
}
