#pragma once
// The HTTP/1.1 framing of one response, on Beast's basic_parser: the status
// and Content-Type go to the response reader when the headers end, and body
// bytes (de-chunked) as they are parsed, stamped with the time of the read
// that brought them. Beast's own response_parser would allocate every header
// field and copy the body through a buffer; this keeps nothing but the
// Content-Type's first bytes (and a redirect's Location, for its message). Pure: fed bytes with put(), as the unit tests do.

#include "openloop/wire/response_reader.hpp"

#include <boost/beast/http/basic_parser.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace openloop {

template <class Emit>
class response_parser final : public boost::beast::http::basic_parser<false> {
    using string_view = boost::beast::string_view;
    using error_code = boost::beast::error_code;

public:
    response_parser(response_reader& reader, Emit emit) : reader_(reader), emit_(std::move(emit)) {
        eager(true);  // the body in the same put() as the headers before it
    }

    // The time of the read whose bytes the next put() parses.
    void at(std::int64_t t_ns) { t_ns_ = t_ns; }
    std::int64_t at() const { return t_ns_; }

private:
    void on_request_impl(boost::beast::http::verb, string_view, string_view, int, error_code&) override {}
    void on_response_impl(int code, string_view, int, error_code&) override { status_ = code; }
    void on_field_impl(boost::beast::http::field name, string_view, string_view value, error_code&) override {
        if (name == boost::beast::http::field::location && status_ >= 300 && status_ < 400)
            reader_.location(std::string_view(value.data(), value.size()));
        if (name != boost::beast::http::field::content_type || has_content_type_) return;
        // The first one, as Beast's fields read; its media type is all the reader looks at.
        has_content_type_ = true;
        content_type_size_ = std::min(value.size(), content_type_.size());
        std::copy_n(value.data(), content_type_size_, content_type_.data());
    }
    void on_header_impl(error_code&) override {
        reader_.headers(status_, std::string_view(content_type_.data(), content_type_size_), t_ns_, emit_);
    }
    void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
    std::size_t on_body_impl(string_view body, error_code&) override {
        reader_.read({.bytes = std::string_view(body.data(), body.size()), .t_ns = t_ns_}, emit_);
        return body.size();
    }
    void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
    std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code&) override {
        reader_.read({.bytes = std::string_view(body.data(), body.size()), .t_ns = t_ns_}, emit_);
        return body.size();
    }
    void on_finish_impl(error_code&) override {}

    response_reader& reader_;
    Emit emit_;
    std::int64_t t_ns_ = 0;
    int status_ = 0;
    std::array<char, 128> content_type_{};
    std::size_t content_type_size_ = 0;
    bool has_content_type_ = false;
};

}  // namespace openloop
