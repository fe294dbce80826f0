package io.cutpoint.ha.node;

import java.net.URI;
import java.time.Duration;

/**
 * How a coordinator joins a highly available cluster: the ZooKeeper ensemble and path of the
 * catalog and the election, the shared store, how to reach the object store, and the address that
 * the standbys give out while this coordinator leads.
 *
 * @param zookeeper ensemble and cluster path
 * @param store bucket and key prefix
 * @param s3Endpoint endpoint of an S3-compatible store; null = AWS S3 of {@code s3Region}
 * @param s3Region region of the bucket (request signing)
 * @param s3PathStyle address the bucket in the path, as S3Proxy and MinIO need
 * @param advertise {@code HOST:PORT} where workers and operators reach this coordinator
 * @param sessionTimeout ZooKeeper session timeout: a leader silent this long loses the lead
 */
public record HaSettings(
    ZooKeeperAddress zookeeper,
    StoreUrl store,
    URI s3Endpoint,
    String s3Region,
    boolean s3PathStyle,
    String advertise,
    Duration sessionTimeout) {}
