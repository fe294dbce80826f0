package io.cutpoint.server.grpc;

import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.util.concurrent.TimeUnit;

/**
 * The keepalive pings a coordinator's network port accepts. Workers that follow a leader among
 * several coordinators ping it when their stream has been silent for 10 s ({@code LeaderChannel}),
 * so that a leader that stopped answering (a frozen process, a dead host whose socket never closed)
 * breaks their stream and they move on to its successor. gRPC's server refuses pings more often
 * than every 5 minutes unless told otherwise, and closes the connection of a client that sends them
 * ("too_many_pings").
 */
public final class KeepAlivePermit {
  /** Pings as often as this are accepted: half of the workers' interval. */
  public static final long PERMIT_SECONDS = 5;

  private KeepAlivePermit() {}

  /** Lets {@code builder}'s clients ping every {@link #PERMIT_SECONDS}, with or without a call. */
  public static NettyServerBuilder apply(NettyServerBuilder builder) {
    return builder
        .permitKeepAliveTime(PERMIT_SECONDS, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true);
  }
}
