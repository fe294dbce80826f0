package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which threads run the coordinator's call handlers on a network port. Three calls run on the
 * transport's own thread (Netty's event loop), because their handlers only hand work on and never
 * wait, so a hop to an executor would be all that the pool adds: an upload, where its parts arrive
 * ({@link UploadReceiver} only decodes and checks them there and hands them on to the store
 * executor and the loop); a worker's session, whose messages are posted to the loop, and whose
 * pieces are taken there as an upload's parts are ({@link SessionStream}); and {@code
 * TriggerSnapshot}, which posts the trigger to the loop and is answered from there ({@link
 * AdminService#triggerSnapshot}). Every other call runs on a pool of handler threads ({@code
 * cutpoint-grpc-N}), as gRPC's default executor would run it, because those handlers may read the
 * store.
 *
 * <p>The in-process transport of the tests keeps its own executor.
 */
public final class CallThreads {

  private static final Set<String> ON_TRANSPORT =
      Set.of(
          CoordinatorGrpc.getUploadSnapshotMethod().getFullMethodName(),
          CoordinatorGrpc.getSessionMethod().getFullMethodName(),
          AdminGrpc.getTriggerSnapshotMethod().getFullMethodName());

  private static final AtomicInteger THREADS = new AtomicInteger();

  /** Shared by every coordinator of the process; idle threads end after a few seconds. */
  private static final ExecutorService HANDLERS =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          10,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          r -> {
            Thread t = new Thread(r, "cutpoint-grpc-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private CallThreads() {}

  /**
   * Sets {@code builder}'s executors: uploads, sessions and triggers on the transport's thread, the
   * rest on the pool.
   */
  public static NettyServerBuilder handOffFreeOnTransport(NettyServerBuilder builder) {
    return builder
        .directExecutor() // what runs a call's lookup, and the handlers of ON_TRANSPORT
        .callExecutor(
            new ServerCallExecutorSupplier() {
              @Override
              public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
                return onTransport(call.getMethodDescriptor().getFullMethodName())
                    ? null
                    : HANDLERS;
              }
            });
  }

  /** Whether the handler of {@code fullMethodName} runs on the transport's thread. */
  static boolean onTransport(String fullMethodName) {
    return ON_TRANSPORT.contains(fullMethodName);
  }
}
