package io.cutpoint.ops.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.cutpoint.ops.Cli;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The console in headless Chromium against a real coordinator with three bank workers that wants an
 * admin token. Screenshots of each page go to {@code target/screenshots/}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {

  private static final String TOKEN = "console-t0ken";
  private static final Duration UI = Duration.ofSeconds(60);

  @TempDir static Path dir;
  private static LiveCluster cluster;
  private static Browser browser;
  private static Http http;

  @BeforeAll
  static void start() throws Exception {
    cluster = LiveCluster.start(dir, TOKEN, null, 3, Duration.ofSeconds(1)).withTraffic(5);
    http = new Http(HttpClient.newHttpClient(), cluster.base(), TOKEN);
    browser = Browser.start();
  }

  /** The page as each test left it, passed or not. */
  @AfterEach
  void screenshot(TestInfo test) {
    browser.screenshot("after-" + test.getTestMethod().orElseThrow().getName());
  }

  @AfterAll
  static void stop() {
    try {
      if (browser != null) {
        browser.close();
      }
    } finally {
      cluster.close();
    }
  }

  // The console re-renders its view on every event, so the page is read and clicked through
  // scripts that run at once in the page, never through element handles that go stale.

  private static long count(String css) {
    return (Long)
        browser.driver.executeScript("return document.querySelectorAll(arguments[0]).length", css);
  }

  @SuppressWarnings("unchecked")
  private static List<String> attrs(String css, String attr) {
    return (List<String>)
        browser.driver.executeScript(
            "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.getAttribute(arguments[1]))",
            css,
            attr);
  }

  @SuppressWarnings("unchecked")
  private static List<String> texts(String css) {
    return (List<String>)
        browser.driver.executeScript(
            "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent)",
            css);
  }

  private static String text(String css) {
    await().atMost(UI).until(() -> count(css) > 0);
    return texts(css).get(0);
  }

  /** Waits for the element and clicks it (SVG groups too). */
  private static void click(String css) {
    await()
        .atMost(UI)
        .until(
            () ->
                (Boolean)
                    browser.driver.executeScript(
                        "const e = document.querySelector(arguments[0]); if (!e) return false;"
                            + " if (e.click) e.click(); else e.dispatchEvent(new MouseEvent('click', {bubbles: true})); return true;",
                        css));
  }

  private static void open(String hash) {
    browser.driver.get(cluster.base() + "/" + hash);
  }

  private static void giveToken(String token) {
    await().atMost(UI).until(() -> count("#token-dialog[open]") == 1);
    browser.driver.findElement(By.cssSelector("#token-input")).sendKeys(token);
    click("#token-ok");
  }

  private static String toast() {
    await()
        .atMost(UI)
        .until(
            () ->
                (Boolean)
                    browser.driver.executeScript(
                        "const t = document.getElementById('toast'); return t.style.display === 'block' && t.textContent !== ''"));
    String t = text("#toast");
    browser.driver.executeScript(
        "const t = document.getElementById('toast'); t.style.display = 'none'; t.textContent = ''");
    return t;
  }

  /**
   * Clicks Trigger and confirms; again while the coordinator refuses because one of its periodic
   * snapshots is in flight (one at a time), as an operator would. Returns the last answer.
   */
  private static String triggerFromTheConsole() {
    AtomicReference<String> answer = new AtomicReference<>();
    await()
        .atMost(UI)
        .until(
            () -> {
              click("#trigger");
              click("#confirm-dialog[open] #confirm-ok");
              answer.set(toast());
              return !answer.get().contains("pending, at most 1 at once");
            });
    return answer.get();
  }

  private static void setToken(String token) {
    browser.driver.executeScript("sessionStorage.setItem('cutpoint.token', arguments[0])", token);
  }

  @Test
  @Order(1)
  void theHistoryFillsOnceTheTokenIsGiven() {
    open("#/snapshots");
    giveToken(TOKEN);
    await().atMost(UI).until(() -> count("#snapshots tbody tr[data-status=COMPLETE]") >= 3);
    await().atMost(UI).until(() -> text("#live").equals("live"));
    assertThat(count("#latency-chart circle")).isGreaterThanOrEqualTo(3);
    assertThat(count("#snapshots tbody tr .phases span")).isPositive();
    // The history keeps filling from the event stream, without a reload.
    long before = count("#snapshots tbody tr");
    await().atMost(UI).until(() -> count("#snapshots tbody tr") > before);
    browser.screenshot("console-snapshots");
  }

  @Test
  @Order(2)
  void theClusterShowsEveryWorkerAndTheTopology() {
    open("#/cluster");
    await().atMost(UI).until(() -> count("#topology g[data-worker]") == 3);
    assertThat(attrs("#topology g[data-worker]", "data-worker"))
        .containsExactlyInAnyOrder("bank-1", "bank-2", "bank-3");
    assertThat(count("#topology line[data-channel]")).isEqualTo(3);
    assertThat(texts("#workers tbody tr"))
        .hasSize(3)
        .allSatisfy(t -> assertThat(t).contains("RUNNING"));
    browser.screenshot("console-cluster");
  }

  @Test
  @Order(3)
  void aSnapshotsDiagramShowsEveryWorkerAndAChannelListsWhatShowChannelLists() throws Exception {
    String[] ch = new String[2];
    long id = AdminHttpApiTest.snapshotWithMessages(http, ch)[0];
    open("#/snapshots/" + id);
    await().atMost(UI).until(() -> count("#spacetime g[data-worker]") == 3);
    Set<String> workers = new TreeSet<>(attrs("#spacetime g[data-worker]", "data-worker"));
    assertThat(workers).containsExactly("bank-1", "bank-2", "bank-3");
    assertThat(count("#spacetime circle[data-capture]")).isEqualTo(3);
    assertThat(count("#pieces tbody tr")).isEqualTo(3);
    String name = ch[0] + "->" + ch[1];
    String channel = "#spacetime g[data-channel='" + name + "']";
    assertThat(count(channel + " .recorded-message")).isPositive();
    click(channel);
    await().atMost(UI).until(() -> count("#channel-messages tbody tr") >= 2);

    List<String> seqs = attrs("#channel-messages tbody tr", "data-seq");
    List<String> payloads = attrs("#channel-messages tbody tr", "data-payload");
    List<String> shown = new ArrayList<>();
    for (int i = 0; i < seqs.size(); i++) {
      shown.add(seqs.get(i) + ":" + payloads.get(i));
    }
    Path tokenFile = Files.writeString(dir.resolve("token"), TOKEN);
    Cli.Result show =
        Cli.run(
            "show",
            Long.toString(id),
            "--channel",
            name,
            "--json",
            "--server",
            cluster.server.target(),
            "--token-file",
            tokenFile.toString());
    assertThat(show.code()).as(show.err()).isZero();
    JsonObject cli = JsonParser.parseString(show.out()).getAsJsonObject();
    List<String> listed = new ArrayList<>();
    for (JsonElement m : cli.getAsJsonArray("messages")) {
      listed.add(
          m.getAsJsonObject().get("seq").getAsString()
              + ":"
              + m.getAsJsonObject().get("payload_base64").getAsString());
    }
    assertThat(shown).isEqualTo(listed).hasSize(cli.get("total_messages").getAsInt());
    browser.screenshot("console-snapshot-detail");
  }

  @Test
  @Order(4)
  void triggerAndRollbackWorkWithTheTokenAndAreRefusedWithoutIt() throws Exception {
    open("#/snapshots");
    String done = triggerFromTheConsole();
    assertThat(done).matches("snapshot #\\d+ complete");
    long triggered = Long.parseLong(done.replaceAll("\\D", ""));
    JsonObject m =
        AdminHttpApiTest.json(http.get("/api/v1/snapshots/" + triggered))
            .getAsJsonObject("manifest");
    assertThat(m.get("trigger").getAsString()).isEqualTo("SNAPSHOT_TRIGGER_ADMIN");

    long epoch = AdminHttpApiTest.json(http.get("/api/v1/cluster")).get("epoch").getAsLong();
    open("#/snapshots/" + triggered);
    click("#rollback");
    await().atMost(UI).until(() -> count("#confirm-dialog[open]") == 1);
    assertThat(text("#confirm-text")).contains("Roll every worker back to snapshot #" + triggered);
    click("#confirm-dialog[open] #confirm-ok");
    assertThat(toast()).startsWith("rolled back to #" + triggered).contains("every worker resumed");
    long after = AdminHttpApiTest.json(http.get("/api/v1/cluster")).get("epoch").getAsLong();
    assertThat(after).isGreaterThan(epoch);
    browser.screenshot("console-after-rollback");

    // A wrong token: the coordinator refuses both, the console says so and nothing happens.
    open("#/snapshots/" + triggered);
    await().atMost(UI).until(() -> count("#rollback") == 1);
    setToken("not-the-token");
    click("#rollback");
    click("#confirm-dialog[open] #confirm-ok");
    click("#token-dialog[open] #token-cancel");
    assertThat(toast()).isEqualTo("401 bad admin token");
    assertThat(AdminHttpApiTest.json(http.get("/api/v1/cluster")).get("epoch").getAsLong())
        .isEqualTo(after);

    setToken(TOKEN);
    open("#/snapshots");
    browser.driver.navigate().refresh();
    await().atMost(UI).until(() -> count("#trigger") == 1);
    long admins = adminTriggered();
    setToken("not-the-token");
    click("#trigger");
    click("#confirm-dialog[open] #confirm-ok");
    click("#token-dialog[open] #token-cancel");
    assertThat(toast()).isEqualTo("401 bad admin token");
    assertThat(adminTriggered()).isEqualTo(admins);

    // Without any token the pages say what the coordinator said.
    browser.driver.executeScript("sessionStorage.clear()");
    open("#/cluster");
    browser.driver.navigate().refresh();
    click("#token-dialog[open] #token-cancel");
    assertThat(text("#load-error")).isEqualTo("admin token required");
    browser.screenshot("console-refused");
  }

  private static long adminTriggered() throws Exception {
    long n = 0;
    for (JsonElement e :
        AdminHttpApiTest.json(http.get("/api/v1/snapshots?page_size=1000"))
            .getAsJsonArray("snapshots")) {
      if (e.getAsJsonObject().get("trigger").getAsString().equals("SNAPSHOT_TRIGGER_ADMIN")) {
        n++;
      }
    }
    return n;
  }
}
