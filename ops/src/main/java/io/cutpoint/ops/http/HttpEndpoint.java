package io.cutpoint.ops.http;

import com.google.protobuf.Message;
import io.cutpoint.ops.format.Json;
import io.cutpoint.server.security.TlsFiles;
import io.cutpoint.server.security.TlsSetupException;
import io.grpc.CallOptions;
import io.grpc.Channel;
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
import io.javalin.http.staticfiles.Location;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
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
  private final EventStreamServlet events;

  private HttpEndpoint(Javalin app, int port, EventStreamServlet events) {
    this.app = app;
    this.port = port;
    this.events = events;
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
    EventStreamServlet events = new EventStreamServlet(admin, guard);
    Javalin app =
        Javalin.create(
            config -> configure(config, host, port, registry, admin, ssl, guard, events));
    try {
      app.start();
    } catch (RuntimeException e) {
      events.destroy();
      throw e;
    }
    Server jetty = app.jettyServer().server();
    int bound = ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    return new HttpEndpoint(app, bound, events);
  }

  private static void configure(
      JavalinConfig config,
      String host,
      int port,
      PrometheusMeterRegistry registry,
      Channel admin,
      SslContextFactory.Server ssl,
      ApiGuard guard,
      EventStreamServlet events) {
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
    config.jetty.modifyServletContextHandler(
        handler -> handler.addServlet(new ServletHolder(events), AdminRoutes.EVENTS));
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

  static Channel withAuth(Channel admin, String authorization) {
    if (authorization == null) {
      return admin;
    }
    Metadata headers = new Metadata();
    headers.put(io.cutpoint.server.security.AdminTokenInterceptor.AUTHORIZATION, authorization);
    return ClientInterceptors.intercept(admin, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private static void grpcError(Context ctx, Status status) {
    if (status.getCode() == Status.Code.UNAUTHENTICATED) {
      ctx.header("WWW-Authenticate", ApiErrors.CHALLENGE);
    }
    ctx.status(HttpStatuses.of(status.getCode())).contentType(JSON).result(ApiErrors.json(status));
  }

  private static void error(Context ctx, int http, String code, String message) {
    ctx.status(http).contentType(JSON).result(ApiErrors.json(code, message));
  }

  /** Event streams being served now. */
  int openEventStreams() {
    return events.openStreams();
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
