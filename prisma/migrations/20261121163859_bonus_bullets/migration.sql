-- AlterTable
ALTER TABLE "game_progress" ADD COLUMN     "bonus_bullets" INTEGER NOT NULL DEFAULT 0;
