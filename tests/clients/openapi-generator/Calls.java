// Calls the Hotel Data Service through the Java client OpenAPI Generator generates (library native,
// java.net.http), untouched but for the base URL, one operation per line of standard input, so the
// test suite drives the same scenario through it as through the generated Python client
// (tests/e2e/test_openapi_generator.py):
//
//     {"op": "RoomService_GetRoom", "args": {"number": "101", "propertyId": "BER1"}}
//
// calls the generated method roomServiceGetRoomWithHttpInfo, each argument converted by the
// client's own ObjectMapper into the parameter's declared type (models, enums, OffsetDateTime), and
// answers one line: {"status", "headers", "type" (the answer's class), "data" (the answer written
// by the same ObjectMapper)} or {"status", "error"} when the client raised ApiException.
//
//     {"op": "watch", "after": "<cursor>", "count": 3}
//
// reads `count` events from GET /changes/stream with the client's HttpClient, each line decoded
// into the declared item schema (WatchChangesResponseStreamLine, which documents before 1.3.0 do
// not have: loaded by name) and its change into Change, and answers {"events": [...]}.
//
//     {"op": "decode", "type": "Change", "json": {...}}
//
// reads json into the client's model of that name and answers it written back {"type", "data"}
// (how an older client takes an answer of a later release).
//
//     java -cp <client classes compiled with -parameters, its dependencies>:. Calls <base URL>
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import hotel.client.ApiClient;
import hotel.client.ApiException;
import hotel.client.ApiResponse;
import hotel.client.model.Change;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public class Calls {
  final ApiClient client = new ApiClient();
  final ObjectMapper mapper = client.getObjectMapper();
  final List<Object> apis = new ArrayList<>();

  Calls(String baseUri) throws Exception {
    client.updateBaseUri(baseUri);
    // Every API class the generator made (one per tag), from the compiled client's own directory.
    File dir = new File(new File(ApiClient.class.getProtectionDomain().getCodeSource().getLocation().toURI()),
                        "hotel/client/api");
    for (String name : dir.list()) {
      if (name.endsWith("Api.class")) {
        Class<?> api = Class.forName("hotel.client.api." + name.substring(0, name.length() - 6));
        apis.add(api.getConstructor(ApiClient.class).newInstance(client));
      }
    }
  }

  // roomServiceGetRoomWithHttpInfo for RoomService_GetRoom: the overload without a header map.
  Object[] method(String operationId) {
    String name = operationId.replace("_", "");
    name = Character.toLowerCase(name.charAt(0)) + name.substring(1) + "WithHttpInfo";
    for (Object api : apis) {
      for (Method m : api.getClass().getMethods()) {
        Class<?>[] types = m.getParameterTypes();
        if (m.getName().equals(name) && (types.length == 0 || types[types.length - 1] != Map.class)) {
          return new Object[] {api, m};
        }
      }
    }
    throw new IllegalArgumentException("no generated method " + name);
  }

  ObjectNode call(String operationId, JsonNode args) throws Exception {
    Object[] found = method(operationId);
    Method m = (Method) found[1];
    Parameter[] params = m.getParameters();
    Object[] values = new Object[params.length];
    List<String> unknown = new ArrayList<>();
    args.fieldNames().forEachRemaining(unknown::add);
    for (int i = 0; i < params.length; i++) {
      JsonNode value = args.get(params[i].getName());
      unknown.remove(params[i].getName());
      values[i] = value == null || value.isNull()
          ? null
          : mapper.convertValue(value, mapper.getTypeFactory().constructType(params[i].getParameterizedType()));
    }
    if (!unknown.isEmpty()) throw new IllegalArgumentException(m.getName() + " has no parameter " + unknown);
    ObjectNode out = mapper.createObjectNode();
    try {
      ApiResponse<?> response = (ApiResponse<?>) m.invoke(found[0], values);
      out.put("status", response.getStatusCode());
      ObjectNode headers = out.putObject("headers");
      response.getHeaders().forEach((k, v) -> headers.put(k, String.join(", ", v)));
      Object data = response.getData();
      out.put("type", data == null ? "" : data.getClass().getSimpleName());
      out.set("data", mapper.valueToTree(data));
    } catch (InvocationTargetException e) {
      if (!(e.getCause() instanceof ApiException)) throw e;
      ApiException refused = (ApiException) e.getCause();
      out.put("status", refused.getCode());
      out.put("error", refused.getResponseBody());
    }
    return out;
  }

  ObjectNode watch(String after, int count) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(client.getBaseUri() + "/api/v1/changes/stream?after="
                                                            + after))
                              .header("Accept", "application/x-ndjson")
                              .build();
    Class<?> itemSchema = Class.forName("hotel.client.model.WatchChangesResponseStreamLine");
    HttpResponse<InputStream> stream = client.getHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
    List<Change> events = new ArrayList<>();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
      String line;
      while (events.size() < count && (line = lines.readLine()) != null) {
        JsonNode item = mapper.valueToTree(mapper.readValue(line, itemSchema));
        JsonNode change = item.path("result").path("change");
        if (change.isObject()) events.add(mapper.treeToValue(change, Change.class));
      }
    }
    ObjectNode out = mapper.createObjectNode();
    out.put("status", stream.statusCode());
    out.put("type", "Change");
    out.set("events", mapper.valueToTree(events));
    return out;
  }

  ObjectNode decode(String type, JsonNode json) throws Exception {
    Object model = mapper.treeToValue(json, Class.forName("hotel.client.model." + type));
    ObjectNode out = mapper.createObjectNode();
    out.put("type", model.getClass().getSimpleName());
    out.set("data", mapper.valueToTree(model));
    return out;
  }

  public static void main(String[] args) throws Exception {
    Calls calls = new Calls(args[0]);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode request = calls.mapper.readTree(line);
      ObjectNode answer;
      try {
        switch (request.get("op").asText()) {
          case "watch":
            answer = calls.watch(request.get("after").asText(), request.get("count").asInt());
            break;
          case "decode":
            answer = calls.decode(request.get("type").asText(), request.get("json"));
            break;
          default:
            answer = calls.call(request.get("op").asText(), request.get("args"));
        }
      } catch (Exception e) {
        Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
        answer = calls.mapper.createObjectNode();
        answer.put("exception", cause.toString());
      }
      System.out.println(calls.mapper.writeValueAsString(answer));
      System.out.flush();
    }
  }
}
