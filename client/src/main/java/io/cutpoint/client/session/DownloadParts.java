package io.cutpoint.client.session;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.util.ArrayPool;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.io.IOException;
import java.io.InputStream;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Parses a download's parts into arrays it reuses, so that a state chunk's bytes are not copied
 * into an array of their own before the piece assembler copies them into the state. Generated code
 * allocates that array for every chunk, and on a large restore most of the worker's CPU went to
 * faulting in and zeroing those fresh arrays. A chunk is parsed with aliasing over the array it was
 * read into, and the array is reused once the chunk is {@link #release released}; any other kind of
 * part is copied out at once, since its fields outlive it (a header's hashes). A part of unknown or
 * very large size is parsed as generated code parses it.
 *
 * <p>Release a chunk once, after its bytes were copied; a chunk that is never released only costs
 * its array (it is not reused). Thread-safe: parts are parsed on gRPC's threads and released on the
 * loop.
 */
final class DownloadParts implements MethodDescriptor.Marshaller<DownloadPart> {

  private static final MethodDescriptor.Marshaller<DownloadPart> GENERATED =
      ProtoUtils.marshaller(DownloadPart.getDefaultInstance());

  /** The largest part read into a reused array: a chunk part is at most about 1 MiB. */
  static final int LARGEST_POOLED = 4 << 20;

  /** Arrays kept for reuse: one per part in flight, and one being copied. */
  private final ArrayPool arrays = new ArrayPool(SnapshotDownloader.PARTS_AHEAD + 1);

  private final Map<DownloadPart, byte[]> lent = new IdentityHashMap<>();
  private long inPlace; // guarded by lent

  @Override
  public InputStream stream(DownloadPart value) {
    return GENERATED.stream(value);
  }

  @Override
  public DownloadPart parse(InputStream stream) {
    int size;
    try {
      size = stream instanceof KnownLength ? stream.available() : -1;
    } catch (IOException e) {
      size = -1;
    }
    if (size <= 0 || size > LARGEST_POOLED) {
      return GENERATED.parse(stream);
    }
    byte[] array = arrays.take(size);
    boolean kept = false;
    try {
      readFully(stream, array, size);
      CodedInputStream in = UnsafeByteOperations.unsafeWrap(array, 0, size).newCodedInput();
      in.enableAliasing(true);
      DownloadPart part = DownloadPart.parser().parseFrom(in);
      if (!part.hasStateChunk()) {
        return DownloadPart.parseFrom(CodedInputStream.newInstance(array, 0, size));
      }
      synchronized (lent) {
        lent.put(part, array);
        inPlace++;
      }
      kept = true;
      return part;
    } catch (IOException e) {
      throw Status.INTERNAL
          .withDescription("unreadable download part: " + e.getMessage())
          .withCause(e)
          .asRuntimeException();
    } finally {
      if (!kept) {
        arrays.give(array);
      }
    }
  }

  /** Takes back the array {@code part} was parsed over, if it was; its bytes are reused after. */
  void release(DownloadPart part) {
    byte[] array;
    synchronized (lent) {
      array = lent.remove(part);
    }
    if (array != null) {
      arrays.give(array);
    }
  }

  /** Chunks parsed in place and not released yet. */
  int held() {
    synchronized (lent) {
      return lent.size();
    }
  }

  /** Chunks parsed in place so far. */
  long parsedInPlace() {
    synchronized (lent) {
      return inPlace;
    }
  }

  private static void readFully(InputStream stream, byte[] into, int size) throws IOException {
    int read = 0;
    while (read < size) {
      int n = stream.read(into, read, size - read);
      if (n < 0) {
        throw new IOException("the part ended after " + read + " of " + size + " bytes");
      }
      read += n;
    }
  }
}
