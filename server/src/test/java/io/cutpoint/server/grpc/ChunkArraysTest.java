package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.StateChunk;
import io.grpc.Drainable;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A chunk's array is reused only once gRPC has closed the stream of the part that carries it: after
 * writing it out (drained, as the Netty transport does) or after its reader is done (read, as
 * in-process); a part sent without naming its array lends nothing. The service serves every method
 * it served before, {@code DownloadSnapshot} through the lending marshaller.
 */
class ChunkArraysTest {

  private static DownloadPart chunk(byte[] array, int length) {
    return DownloadPart.newBuilder()
        .setStateChunk(
            StateChunk.newBuilder()
                .setIndex(4)
                .setData(UnsafeByteOperations.unsafeWrap(array, 0, length))
                .setCrc32C(7))
        .build();
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** {@code arrays} sends {@code part} as a sender does, lending {@code array}: its stream. */
  private static InputStream send(ChunkArrays arrays, DownloadPart part, byte[] array) {
    arrays.sending(array);
    try {
      return arrays.marshaller().stream(part);
    } finally {
      arrays.sent();
    }
  }

  @Test
  void anArrayIsReusedOnlyAfterItsDrainedPartIsClosed() throws Exception {
    ChunkArrays arrays = new ChunkArrays();
    byte[] array = arrays.take(50_000);
    System.arraycopy(random(50_000, 1), 0, array, 0, 50_000);
    DownloadPart part = chunk(array, 50_000);
    byte[] expected = part.toByteArray();

    InputStream stream = send(arrays, part, array);
    assertThat(arrays.take(50_000)).as("lent: not handed out again").isNotSameAs(array);
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    ((Drainable) stream).drainTo(written);
    assertThat(written.toByteArray()).isEqualTo(expected);
    assertThat(arrays.take(50_000)).as("written but not closed yet").isNotSameAs(array);

    stream.close();
    assertThat(arrays.take(50_000)).isSameAs(array);
    assertThat(arrays.reused()).isOne();
  }

  @Test
  void aPartReadInPlaceOfBeingDrainedKeepsItsArrayUntilClosed() throws Exception {
    ChunkArrays arrays = new ChunkArrays();
    byte[] array = arrays.take(70_000);
    System.arraycopy(random(70_000, 2), 0, array, 0, 70_000);
    DownloadPart part = chunk(array, 70_000);

    InputStream stream = send(arrays, part, array);
    assertThat(DownloadPart.parseFrom(stream.readAllBytes())).isEqualTo(part);
    assertThat(arrays.take(70_000)).isNotSameAs(array);
    stream.close();
    stream.close();
    assertThat(arrays.take(70_000)).isSameAs(array);
    assertThat(arrays.take(70_000)).as("given back once").isNotSameAs(array);
  }

  @Test
  void aPartSentWithoutNamingItsArrayLendsNothing() throws Exception {
    ChunkArrays arrays = new ChunkArrays();
    byte[] array = arrays.take(10_000);
    InputStream stream = arrays.marshaller().stream(chunk(array, 10_000));
    stream.readAllBytes();
    stream.close();
    assertThat(arrays.take(10_000)).isNotSameAs(array);
    assertThat(arrays.reused()).isZero();
  }

  @Test
  void theServiceKeepsEveryMethodAndDownloadsThroughTheLendingMarshaller() throws Exception {
    ServerServiceDefinition generated = new CoordinatorGrpc.CoordinatorImplBase() {}.bindService();
    ChunkArrays arrays = new ChunkArrays();
    ServerServiceDefinition lending = arrays.lendingTo(generated);

    assertThat(lending.getServiceDescriptor().getMethods())
        .extracting(MethodDescriptor::getFullMethodName)
        .containsExactlyInAnyOrderElementsOf(
            generated.getServiceDescriptor().getMethods().stream()
                .map(MethodDescriptor::getFullMethodName)
                .toList());
    assertThat(lending.getServiceDescriptor().getSchemaDescriptor())
        .isSameAs(generated.getServiceDescriptor().getSchemaDescriptor());
    @SuppressWarnings("unchecked")
    ServerMethodDefinition<?, DownloadPart> download =
        (ServerMethodDefinition<?, DownloadPart>)
            lending.getMethod(CoordinatorGrpc.getDownloadSnapshotMethod().getFullMethodName());
    byte[] array = arrays.take(1000);
    arrays.sending(array);
    InputStream stream;
    try {
      stream = download.getMethodDescriptor().streamResponse(chunk(array, 1000));
    } finally {
      arrays.sent();
    }
    stream.readAllBytes();
    stream.close();
    assertThat(arrays.take(1000)).isSameAs(array);
  }
}
