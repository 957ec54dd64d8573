#include "openloop/wire/error_text.hpp"

#include "openloop/measure/error_messages.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdio>

namespace openloop {

namespace json = boost::json;

namespace {

// A string as itself; anything else (FastAPI's detail is often a list) as JSON.
std::string text_of(const json::value& v) {
    if (const auto* s = v.if_string()) return std::string(*s);
    return json::serialize(v);
}

}  // namespace

std::string body_message(std::string_view body) {
    json::error_code ec;
    const json::value doc = json::parse(body, ec);
    if (!ec) {
        if (const auto* o = doc.if_object()) {
            if (const auto* e = o->if_contains("error")) {
                if (const auto* eo = e->if_object()) {
                    if (const auto* m = eo->if_contains("message")) return printable_line(text_of(*m), error_messages::max_message_bytes);
                } else if (e->is_string()) {
                    return printable_line(e->get_string(), error_messages::max_message_bytes);
                }
            }
            // A Responses stream's response.failed says it in response.error.message.
            if (const auto* r = o->if_contains("response"); r && r->is_object())
                if (const auto* e = r->get_object().if_contains("error"); e && e->is_object())
                    if (const auto* m = e->get_object().if_contains("message"))
                        return printable_line(text_of(*m), error_messages::max_message_bytes);
            for (const char* key : {"message", "detail"})
                if (const auto* m = o->if_contains(key)) return printable_line(text_of(*m), error_messages::max_message_bytes);
        }
    }
    return printable_line(body.substr(0, body_snippet_bytes), body_snippet_bytes);
}

std::string response_failure_message(error_class cls, std::string_view content_type, std::string_view body,
                                     bool streamed) {
    std::string said = body_message(body);
    if (!streamed && cls == error_class::bad_chunk)
        return said.empty() ? "the server answered 200 with an empty body, not a JSON answer"
                            : "the server answered 200 with a body that is not a whole JSON answer: " + said;
    if (streamed && cls == error_class::bad_chunk)
        return said.empty() ? "a stream event with no data, not a JSON chunk"
                            : "a stream event that is not a JSON chunk: " + said;
    if (cls != error_class::no_content) return said;
    std::string what;
    if (!content_type.empty()) {
        what = "the server answered 200 with " + printable_line(content_type, 100) +
               (streamed ? ", not an SSE stream" : ", not the JSON body a request sent with \"stream\": false gets");
    } else {
        return streamed ? "the server answered 200 with no content chunk" : "the server answered 200 with a completion that generated nothing";
    }
    return said.empty() ? what : what + ": " + said;
}

std::string oversized_event_message(std::size_t limit) {
    char mib[32];
    std::snprintf(mib, sizeof mib, "%g", static_cast<double>(limit) / (1 << 20));
    return std::string("an SSE event (or one line of it) passed openloop's limit of ") + mib +
           " MiB per event; the rest of the stream was not read";
}

// A gateway that redirects /v1 to /v1/ (or http to https) is the usual
// cause: the fix is the target URL, which the message names.
std::string redirect_message(std::string_view location) {
    const std::string to = printable_line(location, 300);
    return (to.empty() ? std::string("redirected without a Location") : "redirected to " + to) +
           "; openloop does not follow redirects: give --target the URL the server expects (a missing or extra "
           "'/' or http for https is the usual cause)";
}

}  // namespace openloop
