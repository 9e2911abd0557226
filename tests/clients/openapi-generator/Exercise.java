// Calls the Hotel Data Service through the Java client OpenAPI Generator generates (library native,
// java.net.http), untouched but for the base URL: reads with enums, the date-time filters as
// OffsetDateTime, a conditional GET with the ETag (304), three events read from the change stream
// with the client's own models, and a webhook's create, ping, resend and delete.
//
//     java -cp <client classes and dependencies>:. Exercise <base URL> <webhook receiver URL>
//
// Prints one JSON line: {"generator": ..., "calls": N, "failures": [...]}; exits 1 on a failure.
import hotel.client.ApiClient;
import hotel.client.ApiException;
import hotel.client.ApiResponse;
import hotel.client.api.ChangesApi;
import hotel.client.api.HealthApi;
import hotel.client.api.MaintenanceApi;
import hotel.client.api.RoomsApi;
import hotel.client.api.WebhooksApi;
import hotel.client.model.Change;
import hotel.client.model.ChangeResourceType;
import hotel.client.model.CreateIssueRequest;
import hotel.client.model.CreateWebhookRequest;
import hotel.client.model.Issue;
import hotel.client.model.IssueCategory;
import hotel.client.model.IssueStats;
import hotel.client.model.ListChangesResponse;
import hotel.client.model.Property;
import hotel.client.model.WatchChangesResponseStreamLine;
import hotel.client.model.Webhook;
import hotel.client.model.WebhookDelivery;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

public class Exercise {
  static int calls = 0;
  static final List<String> failures = new ArrayList<>();

  static void expect(String what, boolean ok) {
    calls++;
    if (!ok) failures.add(what);
  }

  public static void main(String[] args) throws Exception {
    ApiClient client = new ApiClient();
    client.updateBaseUri(args[0]);
    String receiverUrl = args[1];
    RoomsApi rooms = new RoomsApi(client);
    MaintenanceApi maintenance = new MaintenanceApi(client);
    ChangesApi changes = new ChangesApi(client);
    WebhooksApi webhooks = new WebhooksApi(client);
    HealthApi health = new HealthApi(client);
    try {
      expect("GetHealth", "SERVING".equals(health.healthServiceGetHealth().getStatus()));
      expect("GetRoom", rooms.roomServiceGetRoom("101", "BER1", null, null).getCategory() != null);
      expect("ListRooms", !rooms.roomServiceListRooms("BER1", null, null, null, null, null, 5, null, null, null)
          .getData().isEmpty());

      // A conditional GET: the ETag as received, sent back in If-None-Match, answers 304.
      ApiResponse<Property> got = rooms.roomServiceGetPropertyWithHttpInfo("BER1", null);
      String etag = got.getHeaders().get("etag").get(0);
      expect("GetProperty ETag", etag.equals("\"" + got.getData().getEtag() + "\""));
      try {
        rooms.roomServiceGetProperty("BER1", etag);
        expect("GetProperty If-None-Match: 304", false);
      } catch (ApiException e) {
        expect("GetProperty If-None-Match: 304, got " + e.getCode(), e.getCode() == 304);
      }

      // Issues and the date-time filters, sent in the generator's own format.
      Issue issue = maintenance.issueServiceCreateIssue(new CreateIssueRequest().propertyId("BER1")
          .roomNumber("305").title("Leak (Java)").category(IssueCategory.PLUMBING).reportedBy("Front desk"));
      expect("GetIssue", maintenance.issueServiceGetIssue(issue.getId(), null, null).getStatus().equals("OPEN"));
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      IssueStats stats = maintenance.statsServiceGetIssueStats("BER1", now.minusDays(1), now.plusMinutes(1));
      expect("GetIssueStats from/to", stats.getTotal() >= 1);

      // A webhook against the loopback receiver: create (its ping), ping, resend, delete.
      Webhook hook = webhooks.webhookServiceCreateWebhook(
          new CreateWebhookRequest().url(receiverUrl).addResourceTypeItem(ChangeResourceType.ISSUE));
      expect("CreateWebhook", hook.getSecret().startsWith("whsec_") && "ACTIVE".equals(hook.getState()));
      expect("PingWebhook", webhooks.webhookServicePingWebhook(hook.getId(), null).getOk());
      maintenance.issueServiceCreateIssue(new CreateIssueRequest().propertyId("BER1").roomNumber("102")
          .title("Webhook delivery (Java)").category(IssueCategory.OTHER).reportedBy("client"));
      WebhookDelivery delivered = null;
      for (int i = 0; i < 300 && delivered == null; i++) {
        for (WebhookDelivery d : webhooks.webhookServiceListWebhookDeliveries(hook.getId(), null, null, null)
            .getData()) {
          if (Boolean.TRUE.equals(d.getSucceeded())) delivered = d;
        }
        if (delivered == null) Thread.sleep(100);
      }
      expect("a delivery", delivered != null);
      if (delivered != null) {
        expect("ResendWebhookDelivery",
            webhooks.webhookServiceResendWebhookDelivery(hook.getId(), delivered.getId(), null).getSucceeded());
      }
      webhooks.webhookServiceDeleteWebhook(hook.getId());
      try {
        webhooks.webhookServiceGetWebhook(hook.getId());
        expect("DeleteWebhook", false);
      } catch (ApiException e) {
        expect("DeleteWebhook: then 404, got " + e.getCode(), e.getCode() == 404);
      }

      // The change feed: a page, then three events from the stream, one NDJSON line each, read with
      // the client's HttpClient and decoded by its ObjectMapper into the declared item schema.
      ListChangesResponse page = changes.changeServiceListChanges(null, null, null, 3, "FULL");
      expect("ListChanges", page.getData().size() == 3);
      HttpRequest request = HttpRequest.newBuilder(URI.create(client.getBaseUri()
          + "/api/v1/changes/stream?after=" + page.getData().get(0).getCursor()))
          .header("Accept", "application/x-ndjson").build();
      HttpResponse<InputStream> stream =
          client.getHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
      List<Change> events = new ArrayList<>();
      try (BufferedReader lines =
          new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
        String line;
        while (events.size() < 3 && (line = lines.readLine()) != null) {
          WatchChangesResponseStreamLine item =
              client.getObjectMapper().readValue(line, WatchChangesResponseStreamLine.class);
          if (item.getResult() != null && item.getResult().getChange() != null) {
            events.add(item.getResult().getChange());
          }
        }
      }
      expect("WatchChanges: three events after the cursor", events.size() == 3
          && events.get(0).getCursor().equals(page.getData().get(1).getCursor())
          && events.get(1).getCursor().equals(page.getData().get(2).getCursor()));
    } catch (ApiException e) {
      failures.add("ApiException " + e.getCode() + ": " + e.getResponseBody());
    }
    StringBuilder out = new StringBuilder("{\"generator\": \"openapi-generator java\", \"calls\": " + calls
        + ", \"failures\": [");
    for (int i = 0; i < failures.size(); i++) {
      out.append(i > 0 ? ", " : "").append(client.getObjectMapper().writeValueAsString(failures.get(i)));
    }
    System.out.println(out.append("]}"));
    System.exit(failures.isEmpty() ? 0 : 1);
  }
}
