package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.util.ArrayPool;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The arrays a download's state chunks are read into, each reused once gRPC is done with the part
 * that carries it. Without them, every 64 KiB chunk of a rollback cost a fresh array, and on a
 * large rollback most of the coordinator's CPU went to faulting in and zeroing them.
 *
 * <p>A chunk's array is lent to the part: the sender names it ({@link #sending}) for the duration
 * of {@code onNext}, in which gRPC asks the method's marshaller for the part's stream, and that
 * stream takes the array with it. gRPC closes the stream once it has written the part into its own
 * buffers (at once, in {@code onNext}, on its Netty transport) or once the reader is done with it
 * (in-process); only then is the array reused. An array whose part never got a stream (a call
 * cancelled meanwhile) is not reused, only collected. Thread-safe.
 */
final class ChunkArrays {

  private static final MethodDescriptor.Marshaller<DownloadPart> GENERATED =
      ProtoUtils.marshaller(DownloadPart.getDefaultInstance());

  /** Arrays kept for reuse, across downloads. */
  private final ArrayPool arrays = new ArrayPool(32);

  private final ThreadLocal<byte[]> sending = new ThreadLocal<>();

  /** An array of at least {@code size} bytes, not lent to any part. */
  byte[] take(int size) {
    return arrays.take(size);
  }

  /** The array of the part this thread is about to send, until {@link #sent}. */
  void sending(byte[] array) {
    sending.set(array);
  }

  /** The part was sent, or not: its array, if no stream took it, is no longer lent. */
  void sent() {
    sending.remove();
  }

  /** Arrays handed out again so far (for tests). */
  long reused() {
    return arrays.reused();
  }

  /** The marshaller of {@code DownloadSnapshot}'s parts: the generated one, lending arrays. */
  MethodDescriptor.Marshaller<DownloadPart> marshaller() {
    return new MethodDescriptor.Marshaller<>() {
      @Override
      public InputStream stream(DownloadPart part) {
        InputStream generated = GENERATED.stream(part);
        byte[] lent = sending.get();
        sending.remove();
        return lent == null ? generated : new Lending(generated, lent);
      }

      @Override
      public DownloadPart parse(InputStream stream) {
        return GENERATED.parse(stream);
      }
    };
  }

  /**
   * {@code generated}, the coordinator service's definition, with {@code DownloadSnapshot}'s parts
   * written by {@link #marshaller}.
   */
  ServerServiceDefinition lendingTo(ServerServiceDefinition generated) {
    MethodDescriptor<DownloadRequest, DownloadPart> download =
        CoordinatorGrpc.getDownloadSnapshotMethod();
    MethodDescriptor<DownloadRequest, DownloadPart> lending =
        download.toBuilder(download.getRequestMarshaller(), marshaller()).build();
    ServiceDescriptor service = generated.getServiceDescriptor();
    ServiceDescriptor.Builder methods =
        ServiceDescriptor.newBuilder(service.getName())
            .setSchemaDescriptor(service.getSchemaDescriptor());
    for (MethodDescriptor<?, ?> m : service.getMethods()) {
      methods.addMethod(isDownload(m) ? lending : m);
    }
    ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(methods.build());
    for (ServerMethodDefinition<?, ?> m : generated.getMethods()) {
      if (isDownload(m.getMethodDescriptor())) {
        @SuppressWarnings("unchecked") // the generated handler of this very method
        ServerCallHandler<DownloadRequest, DownloadPart> handler =
            (ServerCallHandler<DownloadRequest, DownloadPart>) m.getServerCallHandler();
        out.addMethod(lending, handler);
      } else {
        out.addMethod(m);
      }
    }
    return out.build();
  }

  private static boolean isDownload(MethodDescriptor<?, ?> m) {
    return m.getFullMethodName()
        .equals(CoordinatorGrpc.getDownloadSnapshotMethod().getFullMethodName());
  }

  /** A part's stream that gives its array back when closed. */
  private final class Lending extends InputStream implements Drainable, KnownLength {
    private final InputStream part;
    private byte[] array;

    Lending(InputStream part, byte[] array) {
      this.part = part;
      this.array = array;
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      if (part instanceof Drainable d) {
        return d.drainTo(target);
      }
      return (int) part.transferTo(target);
    }

    @Override
    public int read() throws IOException {
      return part.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return part.read(b, off, len);
    }

    @Override
    public int available() throws IOException {
      return part.available();
    }

    @Override
    public void close() throws IOException {
      try {
        part.close();
      } finally {
        byte[] done = array;
        array = null;
        if (done != null) {
          arrays.give(done);
        }
      }
    }
  }
}
