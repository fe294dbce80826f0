package io.cutpoint.ops.http;

import com.google.protobuf.Message;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.ops.format.Json;
import io.cutpoint.server.security.TlsFiles;
import io.cutpoint.server.security.TlsSetupException;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.http.sse.SseClient;
import io.javalin.http.staticfiles.Location;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's HTTP port: {@code GET /metrics} (Prometheus text format), the Admin service as
 * JSON under {@code /api/v1} ({@link AdminRoutes}), its event stream as Server-Sent Events at
 * {@code /api/v1/events}, and the console at {@code /}.
 *
 * <p>Every API call goes through the coordinator's in-process Admin channel with the caller's
 * {@code Authorization} header passed on as gRPC metadata, so the token check, the validation and
 * the refusals are the gRPC service's own, mapped to HTTP by {@link HttpStatuses}. With TLS files,
 * the port serves HTTPS from the same files as the gRPC port (mutual TLS included).
 */
public final class HttpEndpoint implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);

  /** Content type of the Prometheus text exposition format 0.0.4. */
  public static final String METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private static final String JSON = "application/json";

  /**
   * Longest a unary call may take (a trigger or rollback with {@code wait} is bounded by its own
   * timeout).
   */
  private static final long CALL_DEADLINE_SECONDS = 600;

  /** Classpath folder of the console's static files (module cutpoint-console). */
  public static final String WEB_ROOT = "/cutpoint-web";

  private final Javalin app;
  private final int port;

  private HttpEndpoint(Javalin app, int port) {
    this.app = app;
    this.port = port;
  }

  /**
   * Starts serving on {@code host:port} ({@code port} 0 = any free port).
   *
   * @param admin the coordinator's Admin channel ({@code CoordinatorServer.adminChannel()})
   * @param tls the gRPC port's TLS files, or null for plain HTTP
   * @param authenticated whether API callers prove who they are (an admin token or client
   *     certificates); if not, the API answers only local callers ({@link ApiGuard})
   * @throws io.cutpoint.server.security.TlsSetupException when the TLS files cannot be used
   * @throws io.javalin.util.JavalinException when the port cannot be bound
   */
  public static HttpEndpoint start(
      String host,
      int port,
      PrometheusMeterRegistry registry,
      Channel admin,
      TlsFiles tls,
      boolean authenticated)
      throws TlsSetupException {
    SslContextFactory.Server ssl = tls == null ? null : HttpTls.factory(tls);
    ApiGuard guard = new ApiGuard(authenticated);
    Javalin app =
        Javalin.create(config -> configure(config, host, port, registry, admin, ssl, guard));
    app.start();
    Server jetty = app.jettyServer().server();
    int bound = ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    return new HttpEndpoint(app, bound);
  }

  private static void configure(
      JavalinConfig config,
      String host,
      int port,
      PrometheusMeterRegistry registry,
      Channel admin,
      SslContextFactory.Server ssl,
      ApiGuard guard) {
    config.startup.showJavalinBanner = false;
    config.http.prefer405over404 = true;
    config.startup.showOldJavalinVersionWarning = false;
    config.jetty.host = host;
    config.jetty.port = port;
    config.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrors()));
    if (ssl != null) {
      config.jetty.modifyServer(
          server ->
              server.setConnectors(
                  new org.eclipse.jetty.server.Connector[] {
                    httpsConnector(server, host, port, ssl)
                  }));
    }
    config.staticFiles.add(
        files -> {
          files.hostedPath = "/";
          files.directory = WEB_ROOT;
          files.location = Location.CLASSPATH;
        });
    config.routes.get("/play", HttpEndpoint::playground);
    config.routes.get(
        "/metrics", ctx -> ctx.contentType(METRICS_CONTENT_TYPE).result(registry.scrape()));
    config.routes.before(AdminRoutes.PREFIX + "/*", guard::check);
    for (AdminRoutes.Route route : AdminRoutes.UNARY) {
      Handler h = ctx -> unary(ctx, admin, route);
      switch (route.verb()) {
        case GET -> config.routes.get(route.path(), h);
        case POST -> config.routes.post(route.path(), h);
        case DELETE -> config.routes.delete(route.path(), h);
      }
    }
    config.routes.before(AdminRoutes.EVENTS, ctx -> probe(ctx, admin));
    config.routes.sse(AdminRoutes.EVENTS, client -> events(client, admin));
    config.routes.exception(
        BadRequest.class, (e, ctx) -> error(ctx, 400, "INVALID_ARGUMENT", e.getMessage()));
    config.routes.exception(
        StatusRuntimeException.class, (e, ctx) -> grpcError(ctx, e.getStatus()));
    config.routes.exception(
        HttpResponseException.class,
        (e, ctx) ->
            error(
                ctx,
                e.getStatus(),
                e.getStatus() == 404 ? "NOT_FOUND" : "HTTP_" + e.getStatus(),
                e.getMessage()));
    config.routes.exception(
        Exception.class,
        (e, ctx) -> {
          log.error("HTTP {} {} failed", ctx.method(), ctx.path(), e);
          error(
              ctx,
              500,
              "INTERNAL",
              "internal error (" + e.getClass().getSimpleName() + "); see the coordinator's log");
        });
    config.routes.error(
        404,
        ctx -> {
          if (ctx.result() == null || ctx.result().isEmpty()) {
            error(ctx, 404, "NOT_FOUND", "no such page: " + AdminRequests.shorten(ctx.path()));
          }
        });
  }

  /**
   * The playground's page. Its files are relative to {@code /play/}, so {@code /play} redirects
   * there; routes ignore a trailing slash, so {@code /play/} comes here too and gets the page.
   */
  private static void playground(Context ctx) {
    if (!ctx.path().endsWith("/")) {
      ctx.redirect("/play/");
      return;
    }
    ctx.contentType("text/html; charset=utf-8")
        .result(HttpEndpoint.class.getResourceAsStream(WEB_ROOT + "/play/index.html"));
  }

  private static ServerConnector httpsConnector(
      Server server, String host, int port, SslContextFactory.Server ssl) {
    HttpConfiguration https = new HttpConfiguration();
    https.addCustomizer(new SecureRequestCustomizer(false));
    ServerConnector c =
        new ServerConnector(
            server, new SslConnectionFactory(ssl, "http/1.1"), new HttpConnectionFactory(https));
    c.setHost(host);
    c.setPort(port);
    return c;
  }

  @SuppressWarnings("unchecked")
  private static void unary(Context ctx, Channel admin, AdminRoutes.Route route) {
    MethodDescriptor<Message, Message> method = (MethodDescriptor<Message, Message>) route.method();
    Map<String, String> path = new LinkedHashMap<>();
    ctx.pathParamMap().forEach((k, v) -> path.put(route.fieldOf(k), v));
    Message request =
        AdminRequests.build(method, ctx.body(), path, ctx.queryParamMap(), route.fixed());
    Message response =
        ClientCalls.blockingUnaryCall(
            withAuth(admin, ctx.header("Authorization")),
            method,
            CallOptions.DEFAULT.withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS),
            request);
    ctx.contentType(JSON).result(Json.line(response));
  }

  /**
   * An event stream that the Admin service would refuse is refused with its status before the
   * stream opens: a browser cannot read the status of a stream that opened and closed. The probe is
   * GetCluster, behind the same token check as WatchEvents.
   */
  private static void probe(Context ctx, Channel admin) {
    AdminGrpc.newBlockingStub(withAuth(admin, ctx.header("Authorization")))
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .getCluster(GetClusterRequest.getDefaultInstance());
  }

  @SuppressWarnings("unchecked")
  private static void events(SseClient client, Channel admin) {
    client.keepAlive();
    MethodDescriptor<Message, Message> method =
        (MethodDescriptor<Message, Message>) AdminRoutes.method(AdminRoutes.EVENTS_RPC);
    ClientCall<Message, Message> call =
        withAuth(admin, client.ctx().header("Authorization")).newCall(method, CallOptions.DEFAULT);
    client.onClose(() -> call.cancel("the HTTP client went away", null));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(Message event) {
            client.sendEvent("event", Json.line(event));
            call.request(1);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (!status.isOk() && status.getCode() != Status.Code.CANCELLED) {
              client.sendEvent(
                  "error", errorJson(status.getCode().name(), status.getDescription()));
            }
            client.close();
          }
        },
        new Metadata());
    call.sendMessage(AdminRequests.prototype(method));
    call.halfClose();
    call.request(1);
    client.sendComment("cutpoint events");
  }

  private static Channel withAuth(Channel admin, String authorization) {
    if (authorization == null) {
      return admin;
    }
    Metadata headers = new Metadata();
    headers.put(io.cutpoint.server.security.AdminTokenInterceptor.AUTHORIZATION, authorization);
    return ClientInterceptors.intercept(admin, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private static void grpcError(Context ctx, Status status) {
    error(
        ctx,
        HttpStatuses.of(status.getCode()),
        status.getCode().name(),
        status.getDescription() == null
            ? status.getCode().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
            : status.getDescription());
  }

  private static void error(Context ctx, int http, String code, String message) {
    if (http == 401) {
      ctx.header("WWW-Authenticate", "Bearer realm=\"cutpoint\"");
    }
    ctx.status(http).contentType(JSON).result(errorJson(code, message));
  }

  private static String errorJson(String code, String message) {
    return Json.object()
        .put("code", code)
        .put("message", message == null ? "" : message)
        .toString();
  }

  /** The port actually bound. */
  public int port() {
    return port;
  }

  /** Every route of the API, for docs and tests: {@code VERB path -> Rpc}. */
  public static List<String> routes() {
    List<String> all = new java.util.ArrayList<>();
    for (AdminRoutes.Route r : AdminRoutes.UNARY) {
      all.add(r.verb() + " " + r.path() + " -> " + r.rpc());
    }
    all.add(
        "GET " + AdminRoutes.EVENTS + " -> " + AdminRoutes.EVENTS_RPC + " (Server-Sent Events)");
    return all;
  }

  @Override
  public void close() {
    app.stop();
  }
}
