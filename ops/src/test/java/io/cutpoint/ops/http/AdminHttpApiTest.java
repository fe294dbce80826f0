package io.cutpoint.ops.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ops.format.Json;
import io.cutpoint.server.security.AdminTokenInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.stub.MetadataUtils;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Admin service over HTTP against a real coordinator with three bank workers that want an admin
 * token: the answers are the gRPC answers in the protobuf JSON mapping, the refusals the gRPC
 * refusals as 400/401/404 with a message.
 */
class AdminHttpApiTest {

  private static final String TOKEN = "http-t0ken";

  @TempDir static Path dir;
  private static LiveCluster cluster;
  private static Http http;
  private static Http anonymous;
  private static ManagedChannel grpc;
  private static AdminGrpc.AdminBlockingStub admin;

  @BeforeAll
  static void start() throws Exception {
    cluster = LiveCluster.start(dir, TOKEN, null, 3, Duration.ZERO).withTraffic(20);
    HttpClient client = HttpClient.newHttpClient();
    anonymous = new Http(client, cluster.base(), null);
    http = anonymous.withToken(TOKEN);
    grpc = ManagedChannelBuilder.forTarget(cluster.server.target()).usePlaintext().build();
    Metadata md = new Metadata();
    md.put(AdminTokenInterceptor.AUTHORIZATION, "Bearer " + TOKEN);
    admin =
        AdminGrpc.newBlockingStub(grpc)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
  }

  @AfterAll
  static void stop() throws Exception {
    grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    cluster.close();
  }

  static JsonObject json(HttpResponse<String> r) {
    return JsonParser.parseString(r.body()).getAsJsonObject();
  }

  private static long trigger() throws Exception {
    return trigger(http);
  }

  /** Triggers a snapshot through the API and waits for it; asserts it completed. */
  @SuppressWarnings("unchecked")
  static long trigger(Http http) throws Exception {
    HttpResponse<String>[] last = new HttpResponse[1];
    // A periodic snapshot may be pending: the coordinator then refuses (at most one at once).
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              last[0] = http.post("/api/v1/snapshots", "{\"wait\": true}");
              return !last[0].body().contains("pending, at most");
            });
    HttpResponse<String> r = last[0];
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonObject m = json(r).getAsJsonObject("manifest");
    assertThat(m.get("status").getAsString()).isEqualTo("SNAPSHOT_STATUS_COMPLETE");
    return json(r).get("snapshot_id").getAsLong();
  }

  @Test
  void everyAdminCallHasARoute() {
    Set<String> routed = new HashSet<>();
    AdminRoutes.UNARY.forEach(r -> routed.add(r.rpc()));
    routed.add(AdminRoutes.EVENTS_RPC);
    assertThat(
            AdminGrpc.getServiceDescriptor().getMethods().stream()
                .map(MethodDescriptor::getBareMethodName))
        .containsExactlyInAnyOrderElementsOf(routed);
  }

  @Test
  void snapshotsAnswerWhatListSnapshotsAndGetSnapshotAnswer() throws Exception {
    long id = trigger();
    HttpResponse<String> one = http.get("/api/v1/snapshots/" + id);
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(one.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
    assertThat(JsonParser.parseString(one.body()))
        .isEqualTo(
            JsonParser.parseString(
                Json.line(
                    admin.getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build()))));
    HttpResponse<String> list = http.get("/api/v1/snapshots?statuses=complete&page_size=1000");
    assertThat(JsonParser.parseString(list.body()))
        .isEqualTo(
            JsonParser.parseString(
                Json.line(
                    admin.listSnapshots(
                        ListSnapshotsRequest.newBuilder()
                            .addStatuses(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
                            .setPageSize(1000)
                            .build()))));
    assertThat(list.body()).contains("\"snapshot_id\":\"" + id + "\"");
  }

  /**
   * A complete snapshot and a channel of it with at least two recorded messages (traffic runs all
   * the time).
   */
  static long[] snapshotWithMessages(Http http, String[] channel) {
    long[] found = new long[1];
    await()
        .atMost(Duration.ofMinutes(2))
        .until(
            () -> {
              long id = trigger(http);
              for (var c :
                  json(http.get("/api/v1/snapshots/" + id + "/analysis"))
                      .getAsJsonObject("summary")
                      .getAsJsonArray("per_channel")) {
                JsonObject o = c.getAsJsonObject();
                if (o.get("in_flight_messages").getAsLong() >= 2) {
                  channel[0] = o.getAsJsonObject("channel").get("from").getAsString();
                  channel[1] = o.getAsJsonObject("channel").get("to").getAsString();
                  found[0] = id;
                  return true;
                }
              }
              return false;
            });
    return found;
  }

  @Test
  void channelContentsArePagedLikeGetChannelState() throws Exception {
    String[] ch = new String[2];
    long id = snapshotWithMessages(http, ch)[0];
    String path = "/api/v1/snapshots/" + id + "/channels/" + ch[0] + "/" + ch[1];
    JsonObject first = json(http.get(path + "?page_size=1"));
    assertThat(first.getAsJsonArray("messages")).hasSize(1);
    String token = first.get("next_page_token").getAsString();
    assertThat(token).isNotEmpty();
    HttpResponse<String> second = http.get(path + "?page_size=1&page_token=" + token);
    GetChannelStateRequest.Builder req =
        GetChannelStateRequest.newBuilder()
            .setSnapshotId(id)
            .setChannel(ChannelRef.newBuilder().setFrom(ch[0]).setTo(ch[1]))
            .setPageSize(1);
    assertThat(JsonParser.parseString(second.body()))
        .isEqualTo(
            JsonParser.parseString(
                Json.line(admin.getChannelState(req.setPageToken(token).build()))));
  }

  @Test
  void clusterAnalysisPinAndRollbackGoThroughTheAdminService() throws Exception {
    JsonObject c = json(http.get("/api/v1/cluster"));
    assertThat(c.getAsJsonArray("workers")).hasSize(3);
    long id = trigger();
    assertThat(
            json(http.get("/api/v1/snapshots/" + id + "/analysis")).get("snapshot_id").getAsLong())
        .isEqualTo(id);
    assertThat(
            json(http.post("/api/v1/snapshots/" + id + "/pin", null))
                .getAsJsonObject("manifest")
                .get("pinned")
                .getAsBoolean())
        .isTrue();
    HttpResponse<String> pinnedDelete = http.send("DELETE", "/api/v1/snapshots/" + id, null);
    assertThat(pinnedDelete.statusCode()).as(pinnedDelete.body()).isEqualTo(400);
    assertThat(json(pinnedDelete).get("code").getAsString()).isEqualTo("FAILED_PRECONDITION");
    assertThat(
            json(http.post("/api/v1/snapshots/" + id + "/unpin", null))
                .getAsJsonObject("manifest")
                .get("pinned")
                .getAsBoolean())
        .isFalse();
    HttpResponse<String> rb =
        http.post("/api/v1/snapshots/" + id + "/rollback", "{\"wait\": true}");
    assertThat(rb.statusCode()).as(rb.body()).isEqualTo(200);
    assertThat(json(rb).get("completed").getAsBoolean()).isTrue();
    assertThat(json(rb).get("snapshot_id").getAsLong()).isEqualTo(id);
    assertThat(http.send("DELETE", "/api/v1/snapshots/" + id, null).statusCode()).isEqualTo(200);
    assertThat(http.get("/api/v1/snapshots/" + id).statusCode()).isEqualTo(404);
  }

  @Test
  void scheduleWorkerAbortAndCancelCallsAreServedOverHttp() throws Exception {
    HttpResponse<String> paused = http.post("/api/v1/schedule/pause", null);
    assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
    assertThat(json(paused).getAsJsonObject("schedule").get("paused").getAsBoolean()).isTrue();
    assertThat(
            json(http.get("/api/v1/cluster"))
                .getAsJsonObject("schedule")
                .get("paused")
                .getAsBoolean())
        .isTrue();
    assertThat(
            json(http.post("/api/v1/schedule/resume", null))
                .getAsJsonObject("schedule")
                .get("paused")
                .getAsBoolean())
        .isFalse();

    HttpResponse<String> cancel = http.post("/api/v1/rollback/cancel", null);
    assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(400);
    assertThat(json(cancel).get("code").getAsString()).isEqualTo("FAILED_PRECONDITION");
    assertThat(json(cancel).get("message").getAsString()).contains("no rollback runs or failed");
    HttpResponse<String> remove = http.send("DELETE", "/api/v1/workers/nobody", null);
    assertThat(remove.statusCode()).as(remove.body()).isEqualTo(404);
    assertThat(json(remove).get("message").getAsString()).contains("no worker nobody");
    HttpResponse<String> abort = http.post("/api/v1/snapshots/987654/abort", null);
    assertThat(abort.statusCode()).as(abort.body()).isEqualTo(404);
  }

  @Test
  void refusalsAreTheGrpcOnesWithAMessageAndNeverA500() throws Exception {
    HttpResponse<String> none = anonymous.get("/api/v1/snapshots");
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(json(none).get("message").getAsString()).isEqualTo("admin token required");
    assertThat(none.headers().firstValue("WWW-Authenticate")).isPresent();
    HttpResponse<String> wrong = anonymous.withToken("not-it").post("/api/v1/snapshots", "{}");
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(json(wrong).get("message").getAsString()).isEqualTo("bad admin token");
    assertThat(
            anonymous.withToken("not-it").post("/api/v1/snapshots/1/rollback", null).statusCode())
        .isEqualTo(401);

    List<String[]> bad =
        List.of(
            new String[] {"GET", "/api/v1/snapshots/abc", "400", "snapshot_id"},
            new String[] {"GET", "/api/v1/snapshots/987654", "404", "987654"},
            new String[] {"GET", "/api/v1/snapshots?page_size=-1", "400", "page_size"},
            new String[] {
              "GET", "/api/v1/snapshots?statuses=done", "400", "SNAPSHOT_STATUS_COMPLETE"
            },
            new String[] {
              "GET", "/api/v1/snapshots?colour=red", "400", "unknown parameter 'colour'"
            },
            new String[] {"GET", "/api/v1/snapshots?page_token=zzz", "400", ""},
            new String[] {"POST", "/api/v1/snapshots", "400", "not JSON"},
            new String[] {"GET", "/api/v1/snapshots/0", "400", ""},
            new String[] {"GET", "/api/v1/nothing", "404", "/api/v1/nothing"},
            new String[] {"POST", "/api/v1/snapshots/987654/rollback", "404", "987654"});
    for (String[] b : bad) {
      HttpResponse<String> r =
          http.send(b[0], b[1], b[0].equals("POST") && b[1].endsWith("snapshots") ? "{wait" : null);
      assertThat(r.statusCode())
          .as(b[0] + " " + b[1] + ": " + r.body())
          .isEqualTo(Integer.parseInt(b[2]));
      assertThat(json(r).get("message").getAsString())
          .as(b[1])
          .isNotEmpty()
          .contains(b[3])
          .doesNotContain("at io.");
    }
  }

  @Test
  void eventsArriveAsServerSentEventsAndNeedTheToken() throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    HttpResponse<String> refused =
        client.send(
            HttpRequest.newBuilder(URI.create(cluster.base() + AdminRoutes.EVENTS))
                .header("Accept", "text/event-stream")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.body()).contains("admin token required");

    HttpResponse<Stream<String>> stream =
        client.send(
            HttpRequest.newBuilder(URI.create(cluster.base() + AdminRoutes.EVENTS))
                .header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + TOKEN)
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    assertThat(stream.statusCode()).isEqualTo(200);
    assertThat(stream.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    List<String> lines = new CopyOnWriteArrayList<>();
    Thread reader = new Thread(() -> stream.body().forEach(lines::add), "sse-reader");
    reader.setDaemon(true);
    reader.start();
    try {
      long id = trigger();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  lines.stream()
                      .anyMatch(
                          l ->
                              l.startsWith("data: ")
                                  && l.contains("EVENT_TYPE_SNAPSHOT_COMPLETED")
                                  && l.contains("\"snapshot_id\":\"" + id + "\"")));
      assertThat(lines).contains("event: event");
    } finally {
      stream.body().close();
    }
  }
}
