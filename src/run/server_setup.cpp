#include "openloop/run/server_setup.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace openloop {

namespace json = boost::json;

std::string discover_model(boost::asio::io_context& io, client& cl, const std::string& base) {
    std::string body;
    try {
        body = run_setup(io, cl.get(base + "/models"));
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("cannot discover the model (give --model): ") + e.what());
    }
    json::error_code ec;
    auto doc = json::parse(body, ec);
    const json::value* id = nullptr;
    if (!ec && doc.is_object()) {
        if (const auto* data = doc.as_object().if_contains("data"); data && data->is_array() && !data->as_array().empty())
            if (const auto* first = data->as_array()[0].if_object()) id = first->if_contains("id");
    }
    if (!id || !id->is_string()) throw std::runtime_error("GET " + base + "/models: no model id in the answer (give --model)");
    return std::string(id->as_string());
}

}  // namespace openloop
