package io.cutpoint.ha;

import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.StoreException;
import io.cutpoint.storage.StoreParts;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The objects of an {@link S3SnapshotStore}: each one immutable once written, framed with
 * Cutpoint's CRC32C over its key and payload, and sent with S3's own CRC32C checksum (computed
 * here), which the server checks on upload and the SDK checks on download when the server returns
 * it. A framed piece larger than the part size goes up as a multipart upload, each part with its
 * own CRC32C.
 */
final class Bucket {
  /** S3 refuses parts smaller than this, except the last one. */
  static final int MIN_PART_SIZE = 5 << 20;

  private static final int DELETE_BATCH = 1000;

  private final S3Client s3;
  private final String bucket;
  private final int partSize;
  private final String store;

  Bucket(S3Client s3, String bucket, int partSize, String store) {
    if (partSize < MIN_PART_SIZE) {
      throw new IllegalArgumentException(
          "part size must be at least " + MIN_PART_SIZE + " bytes (S3's minimum), got " + partSize);
    }
    this.s3 = s3;
    this.bucket = bucket;
    this.partSize = partSize;
    this.store = store;
  }

  /** Writes one framed piece; returns the number of parts it took (1 for a single put). */
  int put(String key, byte[] payload, String operation) {
    byte[] framed = StoreParts.frame(key.getBytes(StandardCharsets.UTF_8), payload);
    try {
      if (framed.length <= partSize) {
        s3.putObject(
            b -> b.bucket(bucket).key(key).checksumCRC32C(crc32c(framed)),
            RequestBody.fromBytes(framed));
        return 1;
      }
      return putMultipart(key, framed);
    } catch (SdkException e) {
      throw failure(operation, e);
    }
  }

  private int putMultipart(String key, byte[] framed) {
    String uploadId =
        s3.createMultipartUpload(
                b -> b.bucket(bucket).key(key).checksumAlgorithm(ChecksumAlgorithm.CRC32_C))
            .uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      for (int offset = 0, number = 1; offset < framed.length; offset += partSize, number++) {
        byte[] part =
            Arrays.copyOfRange(framed, offset, Math.min(framed.length, offset + partSize));
        int n = number;
        String crc = crc32c(part);
        UploadPartResponse r =
            s3.uploadPart(
                b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(n).checksumCRC32C(crc),
                RequestBody.fromBytes(part));
        parts.add(CompletedPart.builder().partNumber(n).eTag(r.eTag()).checksumCRC32C(crc).build());
      }
      s3.completeMultipartUpload(
          b -> b.bucket(bucket).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(parts)));
      return parts.size();
    } catch (RuntimeException e) {
      try {
        s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
      } catch (RuntimeException abortFailed) {
        e.addSuppressed(abortFailed);
      }
      throw e;
    }
  }

  /**
   * Reads one piece and checks its frame.
   *
   * @return its payload, or empty if there is no such object
   * @throws CorruptionException naming {@code piece} if it fails S3's or Cutpoint's CRC32C
   */
  Optional<byte[]> get(String key, Supplier<String> piece) {
    ResponseBytes<GetObjectResponse> bytes;
    try {
      bytes =
          s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).checksumMode(ChecksumMode.ENABLED));
    } catch (NoSuchKeyException missing) {
      return Optional.empty();
    } catch (SdkClientException e) {
      if (String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("checksum")) {
        throw new CorruptionException(piece.get() + ": S3 checksum mismatch: " + e.getMessage(), e);
      }
      throw failure("read " + piece.get(), e);
    } catch (SdkException e) {
      throw failure("read " + piece.get(), e);
    }
    return Optional.of(
        StoreParts.unframe(key.getBytes(StandardCharsets.UTF_8), bytes.asByteArray(), piece));
  }

  /** Every key under {@code prefix}, in key order. */
  List<String> keys(String prefix) {
    try {
      List<String> keys = new ArrayList<>();
      for (S3Object o :
          s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
        keys.add(o.key());
      }
      return keys;
    } catch (SdkException e) {
      throw failure("list " + prefix, e);
    }
  }

  /** The "directories" right below {@code prefix} (common prefixes, delimiter {@code /}). */
  List<String> dirs(String prefix) {
    try {
      List<String> dirs = new ArrayList<>();
      for (CommonPrefix p :
          s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix).delimiter("/"))
              .commonPrefixes()) {
        dirs.add(p.prefix());
      }
      return dirs;
    } catch (SdkException e) {
      throw failure("list " + prefix, e);
    }
  }

  /** Bytes of every object under {@code prefix}. */
  long bytes(String prefix) {
    try {
      long total = 0;
      for (S3Object o :
          s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
        total += o.size();
      }
      return total;
    } catch (SdkException e) {
      throw failure("measure " + prefix, e);
    }
  }

  /** Deletes every object under {@code prefix}; returns how many. */
  int deleteAll(String prefix, String operation) {
    return delete(keys(prefix), operation);
  }

  int delete(List<String> keys, String operation) {
    try {
      for (int from = 0; from < keys.size(); from += DELETE_BATCH) {
        List<ObjectIdentifier> batch = new ArrayList<>();
        for (String k : keys.subList(from, Math.min(keys.size(), from + DELETE_BATCH))) {
          batch.add(ObjectIdentifier.builder().key(k).build());
        }
        var response = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(batch)));
        if (response.hasErrors() && !response.errors().isEmpty()) {
          var first = response.errors().get(0);
          throw new StoreException(
              store
                  + ": cannot "
                  + operation
                  + ": "
                  + response.errors().size()
                  + " objects not deleted, e.g. "
                  + first.key()
                  + ": "
                  + first.code()
                  + " "
                  + first.message());
        }
      }
      return keys.size();
    } catch (SdkException e) {
      throw failure(operation, e);
    }
  }

  /**
   * S3's CRC32C of {@code data} (base64 of the 4 big-endian bytes). Computed here and sent as the
   * {@code x-amz-checksum-crc32c} header rather than left to the SDK, which would stream it as an
   * HTTP trailer: the server checks it against the bytes it received, and S3-compatible servers
   * that do not speak trailers still take the upload.
   */
  static String crc32c(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return Base64.getEncoder()
        .encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }

  private StoreException failure(String operation, SdkException e) {
    return new StoreException(store + ": S3: cannot " + operation + ": " + e.getMessage(), e);
  }
}
