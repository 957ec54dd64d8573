#include "openloop/measure/ring.hpp"

#include <new>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace openloop {

namespace {

std::size_t page_size() {
    static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

}  // namespace

ring_pages::ring_pages(std::size_t bytes) : bytes_(bytes == 0 ? 1 : bytes) {
    base_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::bad_alloc();
    // Small pages: a page fault of the producer (the io thread) zeroes 4 KiB,
    // never a 2 MiB huge page, and a part given back is not a huge page split.
    madvise(base_, bytes_, MADV_NOHUGEPAGE);
}

ring_pages::~ring_pages() { munmap(base_, bytes_); }

void ring_pages::release(std::size_t offset, std::size_t bytes) const noexcept {
    const std::size_t page = page_size();
    const std::size_t first = (offset + page - 1) / page * page;
    const std::size_t end = (offset + bytes) / page * page;
    if (end > first) madvise(static_cast<char*>(base_) + first, end - first, MADV_DONTNEED);
}

std::size_t ring_pages::resident_bytes() const {
    const std::size_t page = page_size();
    std::vector<unsigned char> in_core((bytes_ + page - 1) / page);
    if (mincore(base_, bytes_, in_core.data()) != 0) return 0;
    std::size_t pages = 0;
    for (const unsigned char c : in_core) pages += c & 1u;
    return pages * page;
}

}  // namespace openloop
