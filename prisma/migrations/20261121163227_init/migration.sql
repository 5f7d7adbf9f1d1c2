-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "username" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "game_progress" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "current_square" INTEGER NOT NULL DEFAULT 1,
    "total_bullets" INTEGER NOT NULL DEFAULT 0,
    "lives" INTEGER NOT NULL DEFAULT 5,
    "game_status" TEXT NOT NULL DEFAULT 'active',
    "completed_at" TIMESTAMP(3),
    "champion_at" TIMESTAMP(3),
    "boss_battle_attempts" INTEGER NOT NULL DEFAULT 0,
    "boss_victories" INTEGER NOT NULL DEFAULT 0,
    "completed_lessons" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "visited_squares" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "unlocked_sections" TEXT[] DEFAULT ARRAY['half1']::TEXT[],
    "character" TEXT NOT NULL DEFAULT 'knight',
    "time_played" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "game_progress_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "square_completions" (
    "id" SERIAL NOT NULL,
    "progress_id" INTEGER NOT NULL,
    "square" INTEGER NOT NULL,
    "correct" BOOLEAN NOT NULL,
    "bullets_earned" INTEGER NOT NULL DEFAULT 0,
    "answered_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "square_completions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "boss_rooms" (
    "id" SERIAL NOT NULL,
    "room_id" TEXT NOT NULL,
    "boss_health" INTEGER NOT NULL DEFAULT 2000,
    "max_boss_health" INTEGER NOT NULL DEFAULT 2000,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_completed" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMP(3),

    CONSTRAINT "boss_rooms_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "boss_players" (
    "id" SERIAL NOT NULL,
    "boss_room_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "lives" INTEGER NOT NULL DEFAULT 5,
    "bullets_used" INTEGER NOT NULL DEFAULT 0,
    "damage_dealt" INTEGER NOT NULL DEFAULT 0,
    "is_alive" BOOLEAN NOT NULL DEFAULT true,
    "victory" BOOLEAN NOT NULL DEFAULT false,
    "joined_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "left_at" TIMESTAMP(3),
    "died_at" TIMESTAMP(3),

    CONSTRAINT "boss_players_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "boss_battle_stats" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "battles_joined" INTEGER NOT NULL DEFAULT 0,
    "battles_won" INTEGER NOT NULL DEFAULT 0,
    "total_damage_dealt" INTEGER NOT NULL DEFAULT 0,
    "total_bullets_used" INTEGER NOT NULL DEFAULT 0,
    "deaths" INTEGER NOT NULL DEFAULT 0,
    "best_damage" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "boss_battle_stats_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workspace_users" (
    "id" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "first_name" TEXT NOT NULL DEFAULT '',
    "last_name" TEXT NOT NULL DEFAULT '',
    "organization" TEXT NOT NULL DEFAULT '',
    "phone" TEXT NOT NULL DEFAULT '',
    "realm" TEXT NOT NULL DEFAULT 'local',
    "locked" BOOLEAN NOT NULL DEFAULT false,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "password_hash" TEXT,
    "notes" TEXT,
    "session_epoch" INTEGER NOT NULL DEFAULT 0,
    "last_session" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "workspace_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workspace_groups" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workspace_group_members" (
    "user_id" TEXT NOT NULL,
    "group_id" TEXT NOT NULL,
    "joined_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_group_members_pkey" PRIMARY KEY ("user_id","group_id")
);

-- CreateTable
CREATE TABLE "workspace_group_images" (
    "group_id" TEXT NOT NULL,
    "entry_id" TEXT NOT NULL,

    CONSTRAINT "workspace_group_images_pkey" PRIMARY KEY ("group_id","entry_id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "key" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workspace_registry_entries" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "friendly_name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "docker_registry" TEXT NOT NULL,
    "image_src" TEXT NOT NULL,
    "run_config" JSONB NOT NULL,
    "exec_config" JSONB NOT NULL,
    "categories" TEXT[],
    "architecture" TEXT[],
    "compatibility" TEXT[],
    "uncompressed_size_mb" INTEGER NOT NULL,
    "sha" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "workspace_registry_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key" ON "users"("username");

-- CreateIndex
CREATE UNIQUE INDEX "game_progress_user_id_key" ON "game_progress"("user_id");

-- CreateIndex
CREATE INDEX "game_progress_updated_at_idx" ON "game_progress"("updated_at");

-- CreateIndex
CREATE INDEX "game_progress_total_bullets_idx" ON "game_progress"("total_bullets");

-- CreateIndex
CREATE INDEX "game_progress_champion_at_idx" ON "game_progress"("champion_at");

-- CreateIndex
CREATE INDEX "square_completions_progress_id_square_idx" ON "square_completions"("progress_id", "square");

-- CreateIndex
CREATE UNIQUE INDEX "boss_rooms_room_id_key" ON "boss_rooms"("room_id");

-- CreateIndex
CREATE UNIQUE INDEX "boss_players_boss_room_id_user_id_key" ON "boss_players"("boss_room_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "boss_battle_stats_user_id_key" ON "boss_battle_stats"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "workspace_users_username_key" ON "workspace_users"("username");

-- CreateIndex
CREATE UNIQUE INDEX "workspace_groups_name_key" ON "workspace_groups"("name");

-- CreateIndex
CREATE INDEX "workspace_group_members_group_id_idx" ON "workspace_group_members"("group_id");

-- CreateIndex
CREATE INDEX "workspace_group_images_entry_id_idx" ON "workspace_group_images"("entry_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_key" ON "api_keys"("key");

-- CreateIndex
CREATE UNIQUE INDEX "workspace_registry_entries_name_key" ON "workspace_registry_entries"("name");

-- AddForeignKey
ALTER TABLE "game_progress" ADD CONSTRAINT "game_progress_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "square_completions" ADD CONSTRAINT "square_completions_progress_id_fkey" FOREIGN KEY ("progress_id") REFERENCES "game_progress"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "boss_players" ADD CONSTRAINT "boss_players_boss_room_id_fkey" FOREIGN KEY ("boss_room_id") REFERENCES "boss_rooms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "boss_players" ADD CONSTRAINT "boss_players_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "boss_battle_stats" ADD CONSTRAINT "boss_battle_stats_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workspace_group_members" ADD CONSTRAINT "workspace_group_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "workspace_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workspace_group_members" ADD CONSTRAINT "workspace_group_members_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "workspace_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workspace_group_images" ADD CONSTRAINT "workspace_group_images_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "workspace_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workspace_group_images" ADD CONSTRAINT "workspace_group_images_entry_id_fkey" FOREIGN KEY ("entry_id") REFERENCES "workspace_registry_entries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
