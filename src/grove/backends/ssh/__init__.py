"""The SSH backend: commands and SFTP file acts on another machine over one persistent asyncssh connection."""
