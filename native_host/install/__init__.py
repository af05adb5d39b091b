"""Installing the native messaging host: where browsers look (`locations`), and the writer (`manifests`)."""
