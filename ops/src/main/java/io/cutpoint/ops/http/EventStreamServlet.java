package io.cutpoint.ops.http;

import com.google.protobuf.Message;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.ops.format.Json;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /api/v1/events}: the Admin service's WatchEvents as Server-Sent Events, one {@code
 * event: event} frame per event with its JSON as data; an {@code event: error} frame if the
 * coordinator ends the stream with an error; a comment every {@value #HEARTBEAT_SECONDS} s so that
 * proxies and idle timeouts keep a quiet stream open.
 *
 * <p>A servlet of its own rather than a route: the stream outlives the request's handler, and this
 * class alone owns the request's async context. Once the client is gone (a failed write, or Jetty
 * reporting the request's end) nothing writes to the request or completes it again, and the
 * forwarding call is cancelled: Jetty recycles a finished request, and a late write to one fails
 * with errors of its own.
 */
final class EventStreamServlet extends HttpServlet {

  static final long HEARTBEAT_SECONDS = 15;

  private final transient Channel admin;
  private final transient ApiGuard guard;
  private final transient Set<Stream> open = ConcurrentHashMap.newKeySet();
  private final transient ScheduledExecutorService heartbeat =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "cutpoint-http-events");
            t.setDaemon(true);
            return t;
          });

  EventStreamServlet(Channel admin, ApiGuard guard) {
    this.admin = admin;
    this.guard = guard;
    heartbeat.scheduleAtFixedRate(
        () -> open.forEach(s -> s.send(": heartbeat\n\n")),
        HEARTBEAT_SECONDS,
        HEARTBEAT_SECONDS,
        TimeUnit.SECONDS);
  }

  /** Streams being served now. */
  int openStreams() {
    return open.size();
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    Optional<String> refused =
        guard.refusal(req.getRemoteAddr(), req.getHeader("Host"), "GET", req.getHeader("Origin"));
    if (refused.isPresent()) {
      refuse(res, Status.PERMISSION_DENIED.withDescription(refused.get()));
      return;
    }
    Channel caller = HttpEndpoint.withAuth(admin, req.getHeader("Authorization"));
    try {
      // A browser cannot read the status of a stream that opened and closed: refuse before opening
      // what the Admin service would refuse. GetCluster sits behind the same token check.
      AdminGrpc.newBlockingStub(caller)
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .getCluster(GetClusterRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      refuse(res, e.getStatus());
      return;
    }
    res.setStatus(200);
    res.setCharacterEncoding("UTF-8");
    res.setContentType("text/event-stream");
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("X-Accel-Buffering", "no");
    AsyncContext async = req.startAsync();
    async.setTimeout(0);
    Stream stream = new Stream(async, res.getOutputStream());
    async.addListener(stream);
    open.add(stream);
    stream.start(caller);
  }

  @Override
  public void destroy() {
    heartbeat.shutdownNow();
    open.forEach(Stream::end);
  }

  private static void refuse(HttpServletResponse res, Status status) throws IOException {
    res.setStatus(HttpStatuses.of(status.getCode()));
    if (status.getCode() == Status.Code.UNAUTHENTICATED) {
      res.setHeader("WWW-Authenticate", ApiErrors.CHALLENGE);
    }
    res.setContentType("application/json");
    res.getOutputStream().write(ApiErrors.json(status).getBytes(StandardCharsets.UTF_8));
  }

  /** One client's stream: the forwarding call and the request it writes to. */
  private final class Stream implements AsyncListener {

    private final AsyncContext async;
    private final ServletOutputStream out;
    private volatile ClientCall<Message, Message> call;
    private boolean ended; // guarded by this

    Stream(AsyncContext async, ServletOutputStream out) {
      this.async = async;
      this.out = out;
    }

    @SuppressWarnings("unchecked")
    void start(Channel caller) {
      MethodDescriptor<Message, Message> method =
          (MethodDescriptor<Message, Message>) AdminRoutes.method(AdminRoutes.EVENTS_RPC);
      call = caller.newCall(method, CallOptions.DEFAULT);
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(Message event) {
              if (send("event: event\ndata: " + Json.line(event) + "\n\n")) {
                call.request(1);
              }
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              if (!status.isOk() && status.getCode() != Status.Code.CANCELLED) {
                send("event: error\ndata: " + ApiErrors.json(status) + "\n\n");
              }
              end();
            }
          },
          new Metadata());
      call.sendMessage(AdminRequests.prototype(method));
      call.halfClose();
      call.request(1);
      send(": cutpoint events\n\n");
      synchronized (this) {
        if (!ended) {
          return;
        }
      }
      call.cancel("the HTTP client went away", null); // it left before the call was there to cancel
    }

    /** Writes a frame; false once the stream has ended (and ends it if the write fails). */
    boolean send(String frame) {
      synchronized (this) {
        if (ended) {
          return false;
        }
        try {
          out.write(frame.getBytes(StandardCharsets.UTF_8));
          out.flush();
          return true;
        } catch (IOException | RuntimeException e) {
          // the client is gone
        }
      }
      end();
      return false;
    }

    /** Ends the stream once: cancels the call and completes the request, which is still ours. */
    void end() {
      end(true);
    }

    /**
     * Ends the stream once: the call is cancelled, and the request completed if {@code complete};
     * not when Jetty ends it, since nothing may touch it after that.
     */
    private void end(boolean complete) {
      synchronized (this) {
        if (ended) {
          return;
        }
        ended = true;
        if (complete) {
          try {
            async.complete();
          } catch (RuntimeException alreadyOver) {
            // the request ended on its own
          }
        }
      }
      open.remove(this);
      ClientCall<Message, Message> c = call;
      if (c != null) {
        c.cancel("the HTTP client went away", null);
      }
    }

    @Override
    public void onComplete(AsyncEvent event) {
      end(false);
    }

    @Override
    public void onError(AsyncEvent event) {
      end(false);
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      end(false);
    }

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }
}
